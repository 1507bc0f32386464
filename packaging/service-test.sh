#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs inside the Debian root booted with systemd-nspawn (started by package-test.sh through
# agentd-package-test.service): checks agentd.service as the package installed it. Each check
# appends "PASS|FAIL|NOTE text" to /root/service-test/results; the container powers off after.
set -u
out=/root/service-test
mkdir -p "$out"
result() { echo "$*" >>"$out/results"; }
# wait_until SECONDS COMMAND...: polls every 50 ms.
wait_until() {
    n=$(($1 * 20))
    shift
    while [ "$n" -gt 0 ]; do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.05
        n=$((n - 1))
    done
    return 1
}
journal_has() { journalctl -u agentd --no-pager -o cat | grep -q "$1"; }
history_has() { agentctl history "$1" | grep -q " $2"; }
notify=${AGENTD_NOTIFY:-no}

# Started at boot: the package enabled it (multi-user.target waits for it).
if [ "$(systemctl is-active agentd)" = active ]; then
    result PASS "agentd.service started at boot (enabled by the package), $(systemctl show -p Type --value agentd)"
else
    result FAIL "agentd.service is $(systemctl is-active agentd) after boot: $(systemctl status agentd --no-pager 2>&1 | tail -n 5 | tr '\n' ' ')"
fi
main=$(systemctl show -p MainPID --value agentd)
if [ "$notify" = yes ]; then
    status=$(systemctl show -p StatusText --value agentd)
    [ -n "$status" ] && result PASS "STATUS= shown by systemctl: $status" || result FAIL "no STATUS= text from agentd"
fi
sock=$(stat -c '%a %G' /run/agentd/agentd.sock 2>&1)
[ "$sock" = "660 agentd" ] && result PASS "/run/agentd/agentd.sock is 0660 group agentd (RuntimeDirectory=)" ||
    result FAIL "control socket: $sock"

# A job as nobody under the unit's sandbox.
wait_until 10 sh -c 'agentctl list | grep -q "^local\.hello .*registered"'
agentctl simulate launch local.hello >/dev/null 2>&1
if wait_until 20 history_has local.hello success &&
        agentctl history local.hello --json | grep -q 'hello from nobody'; then
    result PASS "a job ran as nobody under the unit's hardening (simulate launch, success)"
else
    result FAIL "local.hello did not succeed under the service: $(agentctl history local.hello 2>&1 | tail -n 2 | tr '\n' ' ')"
fi

# A long job: its cgroup, its privileges, and what a service stop does to it.
cat >/etc/agentd/jobs.d/.sleeper <<'EOT'
#!/bin/sh
# agentd: Kind=processing Interval=none MaxRuntime=10min GracePeriod=20s User=nobody
trap 'echo "got SIGTERM"; echo term >"$STATE_DIRECTORY/term"; sleep 1; exit 0' TERM
echo $$ >"$STATE_DIRECTORY/pid"
echo "STATUS=sleeping"
while :; do sleep 0.1; done
EOT
chmod 755 /etc/agentd/jobs.d/.sleeper
mv /etc/agentd/jobs.d/.sleeper /etc/agentd/jobs.d/sleeper
wait_until 10 sh -c 'agentctl list | grep -q "^local\.sleeper .*registered"'
rm -f /var/lib/agentd/jobs/local.sleeper/term /var/lib/agentd/jobs/local.sleeper/pid
agentctl simulate launch local.sleeper >/dev/null 2>&1
if wait_until 10 test -s /var/lib/agentd/jobs/local.sleeper/pid; then
    pid=$(cat /var/lib/agentd/jobs/local.sleeper/pid)
    cgroup=$(grep '^0::' "/proc/$pid/cgroup" | cut -d: -f3)
    case $cgroup in
        */agentd.service/agentd-runs.*/run-*) result PASS "the run has its own cgroup below the unit (Delegate=yes): $cgroup" ;;
        *) result FAIL "the run's cgroup is '$cgroup', not below agentd.service/agentd-runs.$main" ;;
    esac
    nnp=$(awk '/^NoNewPrivs:/ { print $2 }' "/proc/$pid/status")
    uid=$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")
    [ "$nnp" = 1 ] && [ "$uid" = "$(id -u nobody)" ] && result PASS "the plugin runs as nobody with NoNewPrivs=1" ||
        result FAIL "the plugin has uid $uid, NoNewPrivs $nnp"
else
    pid=""
    result FAIL "local.sleeper did not start: $(agentctl history local.sleeper 2>&1 | tail -n 2 | tr '\n' ' ')"
fi

# systemctl reload: SIGHUP, a rescan.
systemctl reload agentd && wait_until 5 journal_has "SIGHUP: rescanning" &&
    result PASS "systemctl reload agentd: SIGHUP, the config rescanned" ||
    result FAIL "systemctl reload agentd did not reach the agent"

# The watchdog (only an agent that sends WATCHDOG=1; the test's drop-in sets WatchdogSec=3s).
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
    if [ -f /var/lib/agentd/jobs/local.sleeper/term ] && journal_has "stopping with the agent" &&
            ! kill -0 "$pid" 2>/dev/null && [ "$took" -ge 1000 ]; then
        result PASS "systemctl stop: the agent expired the run itself (SIGTERM, the plugin's 1 s trap ran), stopped in $took ms"
    else
        result FAIL "systemctl stop took $took ms; term marker: $(ls /var/lib/agentd/jobs/local.sleeper/ 2>&1 | tr '\n' ' ')"
    fi
fi
state=$(systemctl is-active agentd)
[ "$state" = inactive ] && [ ! -e /run/agentd ] && result PASS "stopped cleanly: inactive, /run/agentd removed" ||
    result FAIL "after stop: $state, /run/agentd $( [ -e /run/agentd ] && echo left || echo gone)"

systemctl start agentd
if [ -n "$pid" ] && wait_until 20 test -S /run/agentd/agentd.sock && wait_until 10 history_has local.sleeper agent-restart; then
    result PASS "the stopped run is recorded agent-restart"
elif [ -n "$pid" ]; then
    result FAIL "local.sleeper's run: $(agentctl history local.sleeper 2>&1 | tail -n 1)"
fi
rm -f /etc/agentd/jobs.d/sleeper
systemctl stop agentd
journalctl -u agentd --no-pager >"$out/journal.txt" 2>&1
result DONE
