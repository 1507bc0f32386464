#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Runs inside the Debian root booted with systemd-nspawn (started by package-test.sh through
# agentd-package-test.service): checks agentd.service as the package installed it, and converted
# Debian timers and cron lines run by it as they run under systemd and cron. Each check appends
# "PASS|FAIL|NOTE text" to /root/service-test/results, and "DONE" once all ran; the container
# powers off after. A check named "[runtime]" needs the per-job sandbox, the run environment
# (HOME, USER...) and OnFailure=/mail-report of issue 26's runtime half.
set -euo pipefail
out=/root/service-test
mkdir -p "$out"
result() { printf '%s\n' "$*" >>"$out/results"; }
# An unexpected failure outside a check ends the test: say where (package-test then reports it as
# not finished, with the journal beside the results).
trap 'result FAIL "service-test.sh stopped at line $LINENO: $BASH_COMMAND"' ERR
trap 'journalctl -u agentd --no-pager >"$out/journal.txt" 2>&1 || true' EXIT

# wait_until SECONDS COMMAND...: runs COMMAND every 50 ms until it succeeds; fails after SECONDS.
wait_until() {
    local deadline=$(($(date +%s%N) + $1 * 1000000000))
    shift
    until "$@" >/dev/null 2>&1; do
        [ "$(date +%s%N)" -lt "$deadline" ] || return 1
        sleep 0.05
    done
}
journal_has() { journalctl -u agentd --no-pager -o cat | grep -q "$1"; }
# agentd's line in `systemd-inhibit --list` (WHO agentd, WHAT sleep, MODE delay), if any.
inhibitor_line() { systemd-inhibit --list --no-pager 2>/dev/null | grep -E '^ *agentd +.*sleep.*delay' | tr -s ' '; }
inhibitor_listed() { [ -n "$(inhibitor_line)" ]; }
no_inhibitor() { [ -z "$(inhibitor_line)" ]; }
# listed ID: agentctl list shows the job loaded (registered, or waiting for its schedule), not an
# error, a duplicate or not permitted.
listed() { agentctl list | grep -F "$1 " | grep -q -v -e ' error' -e 'not-permitted' -e 'duplicate of'; }
history_has() { agentctl history "$1" | grep -q " $2"; }
# A run of ID has ended (any stop reason of DESIGN §7).
ended() { agentctl history "$1" | grep -qE ' (success|failure|crashed|expired|cancelled|spawn-failed|skipped|agent-restart)'; }
# last_run ID: the newest history line of ID, for failure messages.
last_run() { agentctl history "$1" 2>&1 | sed -n 2p | tr -s ' '; }
# tail_of ID: the newest run's log tail, one line.
tail_of() { agentctl history "$1" --limit 1 --json 2>&1 | tr -d '\n' | tr -s ' ' | cut -c 1-600; }
notify=${AGENTD_NOTIFY:-no}
jobs=/etc/agentd/jobs.d
added_jobs=()

# install_job FILE: renames FILE into jobs.d (the agent never sees a half-written file).
install_job() {
    local name
    name=$(basename "$1")
    cp -p "$1" "$jobs/.$name.tmp"
    mv "$jobs/.$name.tmp" "$jobs/$name"
    added_jobs+=("$jobs/$name")
}

# launch ID: waits for the job to be listed, launches it once (agentctl simulate launch, as root)
# and waits up to SECONDS (default 60) for the run to end. Fails with what it saw.
launch() {
    local id=$1 seconds=${2:-60} output
    if ! wait_until 10 listed "$id"; then
        echo "$id is not loaded: $(agentctl list 2>&1 | grep -F "$id" | tr -s ' ')"
        return 1
    fi
    if ! output=$(agentctl simulate launch "$id" 2>&1); then
        echo "agentctl simulate launch $id: $output"
        return 1
    fi
    if ! wait_until "$seconds" ended "$id"; then
        echo "$id did not end within $seconds s: $(last_run "$id")"
        return 1
    fi
}

# Started at boot: the package enabled it (multi-user.target waits for it).
if [ "$(systemctl is-active agentd)" = active ]; then
    result PASS "agentd.service started at boot (enabled by the package), $(systemctl show -p Type --value agentd)"
else
    result FAIL "agentd.service is $(systemctl is-active agentd) after boot: $(systemctl status agentd --no-pager 2>&1 | tail -n 5 | tr '\n' ' ')"
fi
main=$(systemctl show -p MainPID --value agentd)
if [ "$notify" = yes ]; then
    status=$(systemctl show -p StatusText --value agentd)
    if [ -n "$status" ]; then result PASS "STATUS= shown by systemctl: $status"; else result FAIL "no STATUS= text from agentd"; fi
fi
sock=$(stat -c '%a %G' /run/agentd/agentd.sock 2>&1) || true
if [ "$sock" = "666 agentd" ]; then
    result PASS "/run/agentd/agentd.sock is 0666 group agentd: reads for every local user (RuntimeDirectory=)"
else
    result FAIL "control socket: $sock"
fi

# A job as nobody (the chroot step's local.hello).
if launch local.hello 20 && history_has local.hello success &&
        agentctl history local.hello --json | grep -q 'hello from nobody'; then
    result PASS "a job ran as nobody under the service (simulate launch, success)"
else
    result FAIL "local.hello did not succeed under the service: $(last_run local.hello)"
fi

# A long job as root without sandbox keys: its cgroup, nothing inherited from the unit (NoNewPrivs
# 0, /usr writable), and what a service stop does to it.
usr_file=/usr/local/agentd-package-test-usr
rm -f "$usr_file"
cat >"$out/sleeper" <<'EOT'
#!/bin/sh
# agentd: Kind=processing Interval=none MaxRuntime=10min GracePeriod=20s
trap 'echo "got SIGTERM"; echo term >"$STATE_DIRECTORY/term"; sleep 1; exit 0' TERM
touch /usr/local/agentd-package-test-usr 2>"$STATE_DIRECTORY/usr-error" || true
echo $$ >"$STATE_DIRECTORY/pid"
echo "STATUS=sleeping"
while :; do sleep 0.1; done
EOT
chmod 755 "$out/sleeper"
install_job "$out/sleeper"
state=/var/lib/agentd/jobs/local.sleeper
rm -f "$state/term" "$state/pid"
pid=""
if wait_until 10 listed local.sleeper && agentctl simulate launch local.sleeper >/dev/null 2>&1 &&
        wait_until 10 test -s "$state/pid"; then
    pid=$(cat "$state/pid")
    cgroup=$(grep '^0::' "/proc/$pid/cgroup" | cut -d: -f3)
    case $cgroup in
        */agentd.service/agentd-runs.*/run-*) result PASS "the run has its own cgroup below the unit (Delegate=yes): $cgroup" ;;
        *) result FAIL "the run's cgroup is '$cgroup', not below agentd.service/agentd-runs.$main" ;;
    esac
    nnp=$(awk '/^NoNewPrivs:/ { print $2 }' "/proc/$pid/status")
    uid=$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")
    if [ "$nnp" = 0 ] && [ "$uid" = 0 ]; then
        result PASS "a root job without NoNewPrivileges= runs with NoNewPrivs 0 (nothing inherited from the unit)"
    else
        result FAIL "the root plugin has uid $uid, NoNewPrivs $nnp (expected 0 and 0: the unit must not set NoNewPrivileges=)"
    fi
    if [ -e "$usr_file" ]; then
        result PASS "a root job without ProtectSystem= writes /usr (touched $usr_file)"
    else
        result FAIL "a root job could not write /usr: $(cat "$state/usr-error" 2>&1) (the unit must not set ProtectSystem=)"
    fi
    # Issue 30: the real systemd-logind lists agentd's delay inhibitor while a run is live.
    if wait_until 10 inhibitor_listed; then
        result PASS "systemd-inhibit --list shows agentd's sleep delay lock while a run is live: $(inhibitor_line)"
    else
        result FAIL "no agentd sleep delay lock in systemd-inhibit --list while local.sleeper runs: $(systemd-inhibit --list --no-pager 2>&1 | tr -s ' ' | tr '\n' ';')"
    fi
else
    result FAIL "local.sleeper did not start: $(last_run local.sleeper)"
fi

# systemctl reload: SIGHUP, a rescan.
if systemctl reload agentd && wait_until 5 journal_has "SIGHUP: rescanning"; then
    result PASS "systemctl reload agentd: SIGHUP, the config rescanned"
else
    result FAIL "systemctl reload agentd did not reach the agent"
fi

# The watchdog (only an agent that sends WATCHDOG=1; the test's drop-in sets WatchdogSec=3s).
# Nothing to wait for here: the check is that nothing happens for more than two intervals.
if [ "$notify" = yes ]; then
    sleep 7
    if [ "$(systemctl is-active agentd)" = active ] && [ "$(systemctl show -p NRestarts --value agentd)" = 0 ] &&
            [ "$(systemctl show -p MainPID --value agentd)" = "$main" ]; then
        result PASS "watchdog: still the same agent after 7 s with WatchdogSec=3s"
    else
        result FAIL "watchdog: the agent was restarted or stopped (NRestarts=$(systemctl show -p NRestarts --value agentd))"
    fi
fi

# systemctl stop: SIGTERM to agentd alone; it expires the run itself (SIGTERM, grace) and records it.
start=$(date +%s%N)
systemctl stop agentd
took=$((($(date +%s%N) - start) / 1000000))
if [ -n "$pid" ]; then
    if [ -f "$state/term" ] && journal_has "stopping with the agent" && ! kill -0 "$pid" 2>/dev/null && [ "$took" -ge 1000 ]; then
        result PASS "systemctl stop: the agent expired the run itself (SIGTERM, the plugin's 1 s trap ran), stopped in $took ms"
    else
        result FAIL "systemctl stop took $took ms; term marker: $(ls "$state" 2>&1 | tr '\n' ' ')"
    fi
fi
state_now=$(systemctl is-active agentd || true)
if [ "$state_now" = inactive ] && [ ! -e /run/agentd ]; then
    result PASS "stopped cleanly: inactive, /run/agentd removed"
else
    result FAIL "after stop: $state_now, /run/agentd $([ -e /run/agentd ] && echo left || echo gone)"
fi

systemctl start agentd
if [ -n "$pid" ] && wait_until 20 test -S /run/agentd/agentd.sock && wait_until 10 history_has local.sleeper agent-restart; then
    result PASS "the stopped run is recorded agent-restart"
elif [ -n "$pid" ]; then
    result FAIL "local.sleeper's run: $(last_run local.sleeper)"
fi
# No live run, no lock: the restarted agent holds none.
if [ -n "$pid" ] && wait_until 10 no_inhibitor; then
    result PASS "with no run live, systemd-inhibit --list shows no agentd lock"
elif [ -n "$pid" ]; then
    result FAIL "agentd still holds a lock with no run live: $(inhibitor_line)"
fi
rm -f "$jobs/sleeper" "$usr_file"

# ---------------------------------------------------------------------------------------------
# Converted Debian jobs, as an administrator converts them: `agentctl convert` into a copy of the
# config directory, `agentctl check` on it, what convert says to disable disabled, the files moved
# into jobs.d, each launched once as root and checked to write where it writes under systemd/cron.

staging=$out/etc
rm -rf "$staging"
mkdir -p "$staging/jobs.d"
cp -a /etc/agentd/agentd.conf /etc/agentd/manifests.d "$staging/"
mkdir -p "$out/cron.d"
# A cron.d line as packages write them (root, a shell command, a file it writes; MAILTO="" as
# many do, so that this check needs no mail-report), and a failing one whose output cron would
# mail to MAILTO. Kept outside /etc/cron.d: the root's cron (logrotate pulls it in) must not run
# them itself.
cat >"$out/cron.d/agentd-package-test" <<'EOT'
MAILTO=""
SHELL=/bin/sh
PATH=/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin
17 4 * * * root mkdir -p /var/lib/agentd-package-test && echo "cron line ran as $(id -un) proxy=${agentd_test_proxy:-}" >/var/lib/agentd-package-test/cron-line
EOT
cat >"$out/cron.d/agentd-package-test-mailto" <<'EOT'
MAILTO=root
23 5 * * * root echo "agentd-package-test: this cron line fails"; exit 3
EOT

convert() { # convert NAME SOURCE [LABEL]: converts SOURCE into the staging jobs.d, keeps what it printed
    local name=$1 source=$2 label=${3:-}
    if agentctl convert --output-dir "$staging/jobs.d" "$source" >"$out/convert-$name.out" 2>"$out/convert-$name.err"; then
        result PASS "${label}agentctl convert $source: $(sed -n 's|^wrote .*/||p' "$out/convert-$name.out" | tr '\n' ' ')"
    else
        result FAIL "${label}agentctl convert $source failed: $(tr '\n' ' ' <"$out/convert-$name.err" | cut -c 1-400)"
    fi
}
# A `systemctl edit logrotate.timer` drop-in: convert reads it as systemd does, and systemd's own
# view after daemon-reload is the oracle for the calendar the job must get.
override_dir=/etc/systemd/system/logrotate.timer.d
mkdir -p "$override_dir"
printf '[Timer]\nOnCalendar=\nOnCalendar=*-*-* 04:05:00\n' >"$override_dir/agentd-package-test.conf"
systemctl daemon-reload
systemd_calendar=$(systemctl show -P TimersCalendar logrotate.timer 2>&1 || true)
# A dash-prefix drop-in (dpkg-db-.service.d, which systemd also reads for dpkg-db-backup.service),
# a type-wide one (service.d, read for every service) and set-property's: systemd's DropInPaths and
# Environment after daemon-reload are the oracle for what the converted job must read and get. Their
# file names differ: a same-named file in the prefix directory would hide the type-wide one.
prefix_dir=/etc/systemd/system/dpkg-db-.service.d type_dir=/etc/systemd/system/service.d
mkdir -p "$prefix_dir" "$type_dir"
printf '[Service]\nEnvironment=PKGTEST_DASH_PREFIX=dpkg-db-\n' >"$prefix_dir/agentd-package-test.conf"
printf '[Service]\nEnvironment=PKGTEST_TYPE_WIDE=service.d\n' >"$type_dir/agentd-package-test-all.conf"
systemctl daemon-reload
# And `systemctl set-property`'s drop-in, which lives in the control directory systemd reads first.
systemctl set-property --runtime dpkg-db-backup.service CPUWeight=20 >"$out/set-property.out" 2>&1 || true
control_dropin=/run/systemd/system.control/dpkg-db-backup.service.d/50-CPUWeight.conf
systemd_dropins=$(systemctl show -P DropInPaths dpkg-db-backup.service 2>&1 || true)
systemd_environment=$(systemctl show -P Environment dpkg-db-backup.service 2>&1 || true)
convert dpkg-db-backup /lib/systemd/system/dpkg-db-backup.timer
backup_job=$staging/jobs.d/dpkg-db-backup.job
if grep -q "$prefix_dir/agentd-package-test.conf" <<<"$systemd_dropins" && grep -q "$type_dir/agentd-package-test-all.conf" <<<"$systemd_dropins" &&
        grep -q 'PKGTEST_DASH_PREFIX=dpkg-db-' <<<"$systemd_environment" && grep -q 'PKGTEST_TYPE_WIDE=service.d' <<<"$systemd_environment" &&
        grep -qx 'Environment=PKGTEST_DASH_PREFIX=dpkg-db-' "$backup_job" && grep -qx 'Environment=PKGTEST_TYPE_WIDE=service.d' "$backup_job" &&
        grep -q "$prefix_dir/agentd-package-test.conf" "$backup_job" && grep -q "$type_dir/agentd-package-test-all.conf" "$backup_job" &&
        grep -q "$control_dropin" <<<"$systemd_dropins" && grep -q "$control_dropin" "$backup_job" && grep -qx 'CPUWeight=20' "$backup_job"; then
    result PASS "convert dpkg-db-backup.timer read the dash-prefix, type-wide and set-property drop-ins systemd reads (DropInPaths: $systemd_dropins)"
else
    result FAIL "convert dpkg-db-backup.timer with dash-prefix, type-wide and set-property drop-ins: systemd reads '$systemd_dropins' (Environment '$systemd_environment'; set-property: $(tr '\n' ' ' <"$out/set-property.out")); the job: $(tr '\n' ' ' <"$backup_job" 2>&1 | cut -c 1-600)"
fi
rm -rf "$prefix_dir" "$type_dir" "$(dirname "$control_dropin")"
systemctl daemon-reload
convert logrotate /lib/systemd/system/logrotate.timer
logrotate_job=$staging/jobs.d/logrotate.job
if [ "$(grep -c '^Schedule=' "$logrotate_job" 2>/dev/null)" = 1 ] && grep -qx 'Schedule=\*-\*-\* 04:05:00' "$logrotate_job" &&
        grep -q 'OnCalendar=\*-\*-\* 04:05:00' <<<"$systemd_calendar" && [ "$(grep -o 'OnCalendar=' <<<"$systemd_calendar" | wc -l)" = 1 ] &&
        grep -q "$override_dir/agentd-package-test.conf" "$logrotate_job"; then
    result PASS "convert logrotate.timer with a systemctl-edit drop-in: Schedule=*-*-* 04:05:00, the one calendar systemd shows ($systemd_calendar)"
else
    result FAIL "convert logrotate.timer with a drop-in: systemd shows '$systemd_calendar'; the job: $(grep -v '^#   ' "$logrotate_job" 2>&1 | tr '\n' ' ' | cut -c 1-500)"
fi
rm -rf "$override_dir"
systemctl daemon-reload
convert cron-line "$out/cron.d/agentd-package-test"
# What convert says to disable, for the timers: disabled, as an administrator would, so that
# systemd never runs them meanwhile.
for timer in dpkg-db-backup logrotate; do
    if grep -q "systemctl disable --now $timer.timer" "$out/convert-$timer.err"; then
        systemctl disable --now "$timer.timer" >/dev/null 2>&1 || result FAIL "systemctl disable --now $timer.timer failed"
        result PASS "convert $timer.timer printed 'systemctl disable --now $timer.timer' (run here)"
    else
        systemctl disable --now "$timer.timer" >/dev/null 2>&1 || true
        result FAIL "convert $timer.timer did not print 'systemctl disable --now $timer.timer': $(tr '\n' ' ' <"$out/convert-$timer.err" | cut -c 1-300)"
    fi
done
check() { # check SLUG DESCRIPTION [LABEL]: agentctl check on the staging config directory
    local log=$out/check-$1.out what=$2 label=${3:-} warnings
    if agentctl check "$staging" >"$log" 2>&1; then
        warnings=$(grep -c ': warning: ' "$log" || true)
        result PASS "${label}agentctl check on the converted $what: no error, $warnings warning lines"
        [ "$warnings" -eq 0 ] || result NOTE "agentctl check ($what) warned: $(grep ': warning: ' "$log" | tr '\n' ' ' | cut -c 1-600)"
    else
        result FAIL "${label}agentctl check on the converted $what: $(tr '\n' ' ' <"$log" | cut -c 1-600)"
    fi
}
check timers "timers and cron line"
# MAILTO= adds a mail-report job, which convert writes only where the mail-report plugin is.
convert mailto "$out/cron.d/agentd-package-test-mailto" "[runtime] "
check mailto "jobs with the MAILTO= line" "[runtime] "

# identifier_of FILE: the Identifier= of a converted job file.
identifier_of() { sed -n 's/^Identifier=//p' "$1" | head -n 1; }
for f in "$staging"/jobs.d/*.job; do
    if [ -e "$f" ]; then install_job "$f"; fi
done

# dpkg-db-backup: as root, into /var/backups (as under its timer). Nothing wrote it before.
backups_before=$(ls /var/backups)
rm -f /var/backups/dpkg.status.0
job=$(grep -l 'dpkg-db-backup' "$staging"/jobs.d/*.job | head -n 1 || true)
if [ -z "$job" ]; then
    result FAIL "converted dpkg-db-backup: no job file names dpkg-db-backup ($(ls "$staging/jobs.d" | tr '\n' ' '))"
else
    id=$(identifier_of "$job")
    if why=$(launch "$id" 60) && history_has "$id" success && [ -s /var/backups/dpkg.status.0 ] &&
            [ "$(stat -c %U /var/backups/dpkg.status.0)" = root ]; then
        result PASS "converted dpkg-db-backup.timer ($id) succeeded as root: /var/backups/dpkg.status.0 written"
    else
        result FAIL "converted dpkg-db-backup.timer ($id): ${why:-$(last_run "$id")}; /var/backups/dpkg.status.0 $(stat -c '%U %s bytes' /var/backups/dpkg.status.0 2>&1); log: $(tail_of "$id")"
    fi
fi

# logrotate: as root, its state file /var/lib/logrotate/status (as under its timer).
rm -f /var/lib/logrotate/status
job=$(grep -l '/usr/sbin/logrotate' "$staging"/jobs.d/*.job | head -n 1 || true)
if [ -z "$job" ]; then
    result FAIL "converted logrotate: no job file runs /usr/sbin/logrotate"
else
    id=$(identifier_of "$job")
    if why=$(launch "$id" 120) && history_has "$id" success && [ -s /var/lib/logrotate/status ]; then
        result PASS "converted logrotate.timer ($id) succeeded as root: /var/lib/logrotate/status written"
    else
        result FAIL "converted logrotate.timer ($id): ${why:-$(last_run "$id")}; /var/lib/logrotate/status: $(ls -l /var/lib/logrotate/status 2>&1); log: $(tail_of "$id")"
    fi
fi

# The cron.d line: as root (its user field), writing its file under /var/lib (only root can).
# convert writes the line's `$` as systemd's `$$`, which the spawn turns back into `$` (the
# runtime half): checked apart, by what `$(id -un)` printed.
rm -rf /var/lib/agentd-package-test
cron_out=/var/lib/agentd-package-test/cron-line
job=$(grep -l 'cron line ran as' "$staging"/jobs.d/*.job | head -n 1 || true)
if [ -z "$job" ]; then
    result FAIL "converted cron.d line: no job file holds its command"
else
    id=$(identifier_of "$job")
    # Debian's cron gives its jobs /etc/environment through pam_env: the converted line gets it too.
    cp -a /etc/environment "$out/environment.saved" 2>/dev/null || : >"$out/environment.saved"
    echo 'agentd_test_proxy=http://proxy.example:3128' >>/etc/environment
    if why=$(launch "$id" 30) && history_has "$id" success && [ -s "$cron_out" ] &&
            [ "$(stat -c %U "$cron_out")" = root ]; then
        result PASS "converted cron.d line ($id) succeeded as root: $cron_out written"
        if grep -q "^cron line ran as root " "$cron_out"; then
            result PASS "[runtime] the converted cron line's \$(id -un) reached sh as written (Exec= \$\$ is \$): it said root"
        else
            result FAIL "[runtime] the converted cron line's \$(id -un) did not reach sh as written (Exec= \$\$ must be \$ at spawn): it wrote '$(cat "$cron_out")'"
        fi
        if grep -q " proxy=http://proxy.example:3128$" "$cron_out"; then
            result PASS "[runtime] the converted cron line saw /etc/environment's variable, as cron's pam_env gives it"
        else
            result FAIL "[runtime] the converted cron line did not see /etc/environment's agentd_test_proxy: it wrote '$(cat "$cron_out")'"
        fi
    else
        result FAIL "converted cron.d line ($id): ${why:-$(last_run "$id")}; $cron_out: $(ls -l "$cron_out" 2>&1); log: $(tail_of "$id")"
    fi
    cat "$out/environment.saved" >/etc/environment
fi

# MAILTO=: the failing line's output reaches a local mailbox through /usr/sbin/sendmail (a
# stand-in that appends to /var/mail/root, as an MTA delivering to root would).
mailbox=/var/mail/root
sendmail_added=0
if [ ! -e /usr/sbin/sendmail ]; then
    sendmail_added=1
    cat >/usr/sbin/sendmail <<'EOT'
#!/bin/sh
# agentd package test: a stand-in MTA that delivers every message to /var/mail/root.
{ echo "From agentd-package-test $(date)"; echo "X-Sendmail-Arguments: $*"; cat; echo; } >>/var/mail/root
EOT
    chmod 755 /usr/sbin/sendmail
fi
rm -f "$mailbox"
job=$(grep -l 'this cron line fails' "$staging"/jobs.d/*.job | head -n 1 || true)
if [ -z "$job" ]; then
    result FAIL "[runtime] converted MAILTO= cron line: no job file holds its command"
else
    id=$(identifier_of "$job")
    report=$(sed -n 's/^OnFailure=//p' "$job" | head -n 1)
    if [ -z "$report" ]; then
        result FAIL "[runtime] converted MAILTO= cron line ($id) has no OnFailure=: $(grep -v '^#' "$job" | tr '\n' ' ')"
    elif why=$(launch "$id" 30) && history_has "$id" "failure" && listed "$report" &&
            wait_until 30 history_has "$report" success && grep -q "this cron line fails" "$mailbox" 2>/dev/null; then
        result PASS "[runtime] a failing MAILTO= cron line ($id) reached root's mailbox through OnFailure=$report and sendmail"
    else
        result FAIL "[runtime] MAILTO= cron line ($id, OnFailure=$report): ${why:-$(last_run "$id")}; $report: $(last_run "$report"); $mailbox: $(head -c 300 "$mailbox" 2>&1 | tr '\n' ' ')"
    fi
fi
[ "$sendmail_added" = 0 ] || rm -f /usr/sbin/sendmail
rm -f "$mailbox"

# A drop-in script sees the environment of its user's passwd entry, as run-parts under cron does.
cat >"$out/env-check" <<'EOT'
#!/bin/sh
# agentd: Kind=processing Interval=none
echo "HOME=${HOME:-} USER=${USER:-} LOGNAME=${LOGNAME:-} SHELL=${SHELL:-}" >"$STATE_DIRECTORY/env"
echo "nofile=$(ulimit -Sn):$(ulimit -Hn)" >>"$STATE_DIRECTORY/env"
EOT
chmod 755 "$out/env-check"
install_job "$out/env-check"
env_file=/var/lib/agentd/jobs/local.env-check/env
if why=$(launch local.env-check 20) && history_has local.env-check success &&
        grep -q '^HOME=/root USER=root LOGNAME=root SHELL=/bin/bash$' "$env_file" 2>/dev/null; then
    result PASS "[runtime] a drop-in script as root sees HOME=/root USER=root LOGNAME=root SHELL=/bin/bash"
else
    result FAIL "[runtime] a drop-in script's environment: ${why:-$(last_run local.env-check)}; it saw: $(cat "$env_file" 2>&1)"
fi
# The agent raises its own soft limit to the hard one (LimitNOFILE=1024:65536, or less where the
# container's own hard limit is lower); a job gets the service's soft 1024 back, as under cron.
agent_hard=$(awk '/^Max open files/ {print $5}' "/proc/$(systemctl show -p MainPID --value agentd)/limits")
agent_soft=$(awk '/^Max open files/ {print $4}' "/proc/$(systemctl show -p MainPID --value agentd)/limits")
if grep -qx "nofile=1024:$agent_hard" "$env_file" 2>/dev/null && [ "$agent_soft" = "$agent_hard" ] &&
        [ "$agent_hard" -gt 1024 ]; then
    result PASS "[runtime] a job's open-file limit is 1024 (hard $agent_hard) while agentd's own is $agent_soft"
else
    result FAIL "[runtime] open-file limits: the job saw $(grep nofile "$env_file" 2>&1), agentd has $agent_soft:$agent_hard (want the job at 1024:HARD, agentd at HARD:HARD)"
fi

# A cron.hourly script converted beside this machine's /etc/crontab runs with that crontab's PATH
# and SHELL, as run-parts under cron ran it. The crontab is copied beside a copy of cron.hourly,
# so that the root's cron never runs the script itself.
rm -rf "$out/run-parts" /var/lib/agentd-package-test
mkdir -p "$out/run-parts/cron.hourly" "$out/run-parts/jobs.d"
cp /etc/crontab "$out/run-parts/crontab"
cat >"$out/run-parts/cron.hourly/agentd-package-test" <<'EOT'
#!/bin/sh
mkdir -p /var/lib/agentd-package-test && echo "$PATH $SHELL $(id -un)" >/var/lib/agentd-package-test/run-parts
EOT
chmod 755 "$out/run-parts/cron.hourly/agentd-package-test"
crontab_path=$(sed -n 's/^PATH=//p' /etc/crontab | tail -n 1)
run_parts_out=/var/lib/agentd-package-test/run-parts
if ! agentctl convert --output-dir "$out/run-parts/jobs.d" "$out/run-parts/cron.hourly" \
        >"$out/convert-run-parts.out" 2>"$out/convert-run-parts.err"; then
    result FAIL "[runtime] agentctl convert of a cron.hourly copy failed: $(tr '\n' ' ' <"$out/convert-run-parts.err" | cut -c 1-400)"
elif [ -z "$crontab_path" ]; then
    result FAIL "[runtime] /etc/crontab sets no PATH= to compare with: $(grep -v '^#' /etc/crontab 2>&1 | tr '\n' ' ')"
else
    install_job "$out/run-parts/jobs.d/agentd-package-test.job"
    if why=$(launch local.agentd-package-test 30) && history_has local.agentd-package-test success &&
            grep -qxF "$crontab_path /bin/sh root" "$run_parts_out" 2>/dev/null; then
        result PASS "[runtime] a converted cron.hourly script ran as root with /etc/crontab's PATH=$crontab_path and SHELL=/bin/sh"
    else
        result FAIL "[runtime] a converted cron.hourly script: ${why:-$(last_run local.agentd-package-test)}; it saw '$(cat "$run_parts_out" 2>&1)', /etc/crontab's PATH is $crontab_path; job: $(grep -v '^#' "$out/run-parts/jobs.d/agentd-package-test.job" 2>&1 | tr '\n' ' ')"
    fi
fi

# A job's own sandbox: ProtectSystem=strict with ReadWritePaths=/var/tmp/x cannot write /etc but
# can write /var/tmp/x.
rm -rf /var/tmp/x /etc/agentd-package-test-sandbox
mkdir -p /var/tmp/x
cat >"$out/sandbox-strict.job" <<'EOT'
[Job]
Identifier=local.sandbox-strict
Kind=processing
User=root
ProtectSystem=strict
ReadWritePaths=/var/tmp/x
Exec=/bin/sh -c 'if touch /etc/agentd-package-test-sandbox; then echo "wrote /etc"; exit 1; fi; echo in-x >/var/tmp/x/written'
EOT
install_job "$out/sandbox-strict.job"
if why=$(launch local.sandbox-strict 20) && history_has local.sandbox-strict success &&
        [ ! -e /etc/agentd-package-test-sandbox ] && grep -qx in-x /var/tmp/x/written 2>/dev/null; then
    result PASS "[runtime] ProtectSystem=strict, ReadWritePaths=/var/tmp/x: /etc not writable, /var/tmp/x written"
else
    result FAIL "[runtime] ProtectSystem=strict job: ${why:-$(last_run local.sandbox-strict)}; /etc/agentd-package-test-sandbox $([ -e /etc/agentd-package-test-sandbox ] && echo written || echo 'not written'), /var/tmp/x/written: $(cat /var/tmp/x/written 2>&1)"
fi

# Leave the root as it was for the purge check: the jobs, what they wrote, the timers enabled again.
rm -f "${added_jobs[@]}"
rm -rf /var/tmp/x /etc/agentd-package-test-sandbox /var/lib/agentd-package-test
for f in /var/backups/*; do
    grep -qxF "$(basename "$f")" <<<"$backups_before" || rm -f "$f"
done
rm -f /var/lib/logrotate/status
systemctl enable dpkg-db-backup.timer logrotate.timer >/dev/null 2>&1 || true

systemctl stop agentd
result DONE
