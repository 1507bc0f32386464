#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# make package-test: the install test of the Debian package (needs root).
#
# 1. A minimal Debian 12 root: `debootstrap --variant=minbase --include=systemd,logrotate bookworm`, made once
#    and cached as a tar file in /var/cache/agentd-package-test/ (packaging/debian-root.sh;
#    AGENTD_TEST_CACHE=DIR to put it elsewhere, AGENTD_TEST_REFRESH=1 to make it again, `make
#    package-test-clean` to remove it); each run unpacks it afresh into packaging/build/package-test/
#    and removes that root at the end (AGENTD_TEST_KEEP_ROOT=1 keeps it to look at).
# 2. Installs packaging/build/agentd_VERSION_ARCH.deb there with `apt-get install ./agentd_*.deb`,
#    checks the installed files and `systemd-analyze verify`s the unit.
# 3. Runs agentd in the foreground inside the root (default paths), drops a job script into
#    /etc/agentd/jobs.d/, waits for `agentctl list` to show it, `agentctl simulate launch`es it,
#    waits for `agentctl history` to show success, and stops the agent.
# 4. Boots the root with systemd-nspawn and checks agentd.service as installed (service-test.sh):
#    started at boot, a job as nobody, a root job with nothing inherited from the unit (NoNewPrivs
#    0, /usr writable), the run's delegated cgroup, reload, the watchdog, a stop that lets the agent
#    expire the running plugin itself; then dpkg-db-backup.timer, logrotate.timer and cron.d lines
#    converted with the installed agentctl, checked, launched as root and their files checked, a
#    MAILTO= line's failure mailed, a drop-in's HOME, a ProtectSystem=strict job's sandbox
#    (AGENTD_TEST_SYSTEMD=0 skips this).
# 5. Purges the package (and the dependencies it pulled in) and checks nothing of it is left.
# 6. lintian on the .deb: no errors.
# 7. The sizes docs/packaging.md states match the .deb (packaging/doc-sizes.sh --check).
# Prints PASS/FAIL per step and overall; exits 1 on any failure.
set -euo pipefail

root_dir=$(cd "$(dirname "$0")/.." && pwd)
build="$root_dir/packaging/build"
work="$build/package-test"
target="$work/root"
log_dir="$work/logs"
suite=bookworm

die() { echo "package-test: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mounts): run it as root or with sudo"
for tool in debootstrap lintian dpkg-deb chroot mount umount; do
    command -v "$tool" >/dev/null || die "$tool is missing; run ./scripts/install-deps.sh packaging"
done

version=$(sed -n 's/.*static let string = "\([^"]*\)".*/\1/p' "$root_dir/Sources/AgentProtocol/AgentVersion.swift")
arch=$(dpkg --print-architecture)
deb="$build/agentd_${version}_${arch}.deb"
[ -f "$deb" ] || die "$deb is missing; build it with make deb (make package-test does)"

started=$(date +%s)
results=()
failed=0
record() { # record NAME PASS|FAIL|SKIP|NOTE [DETAIL]
    results+=("$(printf '%-4s  %s%s' "$2" "$1" "${3:+ ($3)}")")
    [ "$2" = FAIL ] && failed=1
    printf '%s: %s%s\n' "$2" "$1" "${3:+ ($3)}"
}

# ---------------------------------------------------------------------------------------------
# Mounts inside the root, always undone (also on Ctrl-C or a failed step).

agent_pid=""
mounted=()

# Mount points at or below $1, deepest first (from /proc/self/mountinfo; \040 etc. left as is).
mounts_below() {
    awk -v r="$1" '$5 == r || index($5, r "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r
}

unmount_all() {
    local point
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" 2>/dev/null || true
    done
    mounted=()
    # Anything a crashed earlier run left mounted below the root.
    for point in $(mounts_below "$target"); do
        umount "$point" 2>/dev/null || umount -l "$point" 2>/dev/null || true
    done
}

stop_agent() {
    [ -n "$agent_pid" ] || return 0
    if kill -0 "$agent_pid" 2>/dev/null; then
        kill -TERM "$agent_pid" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$agent_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$agent_pid" 2>/dev/null || true
    fi
    wait "$agent_pid" 2>/dev/null || true
    agent_pid=""
}

cleanup() {
    stop_agent
    unmount_all
}
trap cleanup EXIT
trap 'echo "package-test: interrupted" >&2; exit 130' INT TERM

mount_into_root() { # mount_into_root TYPE SOURCE DIR [OPTIONS...]
    local type=$1 source=$2 dir=$target$3
    shift 3
    mkdir -p "$dir"
    if [ "$type" = bind ]; then
        mount --bind "$source" "$dir" "$@"
    else
        mount -t "$type" "$source" "$dir" "$@"
    fi
    mounted+=("$dir")
}

# /proc, /sys (with the cgroup v2 hierarchy, so the agent gives runs cgroups as on a real system)
# and /dev for the chroot steps.
mount_root() {
    mount_into_root proc proc /proc
    mount_into_root sysfs sysfs /sys
    if mount -t cgroup2 cgroup2 "$target/sys/fs/cgroup" 2>/dev/null; then
        mounted+=("$target/sys/fs/cgroup")
        cgroup_note="with cgroup v2"
    else
        cgroup_note="no cgroup v2: process groups only"
    fi
    mount_into_root bind /dev /dev
}

# Removes the work root; refuses while anything is still mounted below it.
remove_root() {
    [ -e "$target" ] || return 0
    unmount_all
    if [ -n "$(mounts_below "$target")" ]; then
        die "cannot remove $target: still mounted: $(mounts_below "$target" | tr '\n' ' ')(unmount them by hand)"
    fi
    rm -rf --one-file-system "$target"
}

# Runs a command inside the root with a clean environment.
inroot() {
    chroot "$target" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 HOME=/root \
        DEBIAN_FRONTEND=noninteractive "$@"
}

# wait_for SECONDS DESCRIPTION COMMAND...: polls COMMAND (every 50 ms) until it succeeds.
wait_for() {
    local seconds=$1 what=$2 deadline
    shift 2
    deadline=$(($(date +%s%N) + seconds * 1000000000))
    until "$@" >/dev/null 2>&1; do
        if [ "$(date +%s%N)" -ge "$deadline" ]; then
            echo "package-test: gave up after ${seconds}s waiting for $what" >&2
            return 1
        fi
        if [ -n "$agent_pid" ] && ! kill -0 "$agent_pid" 2>/dev/null; then
            echo "package-test: agentd exited while waiting for $what" >&2
            return 1
        fi
        sleep 0.05
    done
}

show_log() { # show_log FILE: the last lines of a log, indented
    [ -f "$1" ] && tail -n "${2:-40}" "$1" | sed 's/^/    | /' >&2 || true
}

# ---------------------------------------------------------------------------------------------
# 1. The Debian 12 root.

mkdir -p "$work"
remove_root
rm -rf "$log_dir"
mkdir -p "$log_dir"

phase_start=$(date +%s)
cached=yes
[ -f "$("$root_dir/packaging/debian-root.sh" --path)" ] && [ "${AGENTD_TEST_REFRESH:-0}" != 1 ] || cached=no
base=$("$root_dir/packaging/debian-root.sh") || die "no Debian 12 root (see above)"
if [ "$cached" = yes ]; then
    cache_note="cached root $base"
else
    cache_note="debootstrap, $(($(date +%s) - phase_start)) s"
fi
mkdir -p "$target"
tar -C "$target" -xf "$base"
record "Debian 12 root ready" PASS "$cache_note"
root_seconds=$(($(date +%s) - phase_start))

# The same Debian suites as this machine (main, updates, security) and its resolver.
apt-get indextargets --format '$(RELEASE) $(REPO_URI) $(COMPONENT)' 2>/dev/null |
    awk -v s="$suite" '($1 == s || $1 == s "-updates" || $1 == s "-security") && $3 == "main" && !seen[$0]++ {
        print "deb " $2 " " $1 " main" }' >"$target/etc/apt/sources.list.tmp"
if [ -s "$target/etc/apt/sources.list.tmp" ]; then
    mv "$target/etc/apt/sources.list.tmp" "$target/etc/apt/sources.list"
else
    rm -f "$target/etc/apt/sources.list.tmp"
fi
cp -L /etc/resolv.conf "$target/etc/resolv.conf" 2>/dev/null || true

mount_root

# ---------------------------------------------------------------------------------------------
# 2. Install.

phase_start=$(date +%s)
snapshot() { # the root's files, less what apt, dpkg, logs and booting (timer stamps, logind's linger directory) change by themselves
    (cd "$target" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./tmp \
        -o -path ./run -o -path ./var/cache/apt -o -path ./var/lib/apt -o -path ./var/lib/dpkg \
        -o -path ./var/log -o -path ./var/cache/debconf -o -path ./var/cache/ldconfig \
        -o -path ./var/lib/systemd/timers -o -path ./var/lib/systemd/linger \) -prune -o -print) |
        sort
}

install_ok=0
if ! inroot apt-get update >"$log_dir/apt-update.log" 2>&1; then
    show_log "$log_dir/apt-update.log"
    record "apt-get update in the root" FAIL "log: $log_dir/apt-update.log"
else
    # The machine's D-Bus (as on every desktop and most servers), so that the booted root's
    # systemd-logind runs and lists agentd's inhibitors (issue 30); part of the root before the
    # install, so the purge check does not count it.
    inroot apt-get install -y --no-install-recommends dbus >"$log_dir/dbus-install.log" 2>&1 ||
        record "apt-get install dbus (for systemd-logind)" FAIL "log: $log_dir/dbus-install.log"
    snapshot >"$work/before.txt"
    cp "$deb" "$target/tmp/"
    if inroot apt-get install -y --no-install-recommends "/tmp/$(basename "$deb")" \
            >"$log_dir/install.log" 2>&1; then
        install_ok=1
        record "apt-get install ./$(basename "$deb")" PASS "$(($(date +%s) - phase_start)) s"
    else
        show_log "$log_dir/install.log"
        record "apt-get install ./$(basename "$deb")" FAIL "log: $log_dir/install.log"
    fi
fi

check_installed() {
    local problems=() f
    for f in /usr/sbin/agentd /usr/bin/agentctl /usr/lib/agentd/plugins/example-refresh \
            /usr/lib/agentd/plugins/example-checkpoint /usr/lib/agentd/plugins/example-export \
            /usr/lib/agentd/plugins/transfer; do
        [ -x "$target$f" ] || problems+=("$f is not executable")
    done
    for f in /lib/systemd/system/agentd.service /usr/lib/systemd/user/agentd.service /etc/agentd/agentd.conf \
            /etc/agentd/manifests.d/local.manifest /usr/lib/sysusers.d/agentd.conf \
            /usr/share/bash-completion/completions/agentctl /usr/share/man/man8/agentd.8.gz \
            /usr/share/man/man1/agentctl.1.gz /usr/share/man/man5/agentd.job.5.gz \
            /usr/share/man/man1/agentd-transfer.1.gz \
            /usr/share/man/man5/agentd.conf.5.gz /usr/share/doc/agentd/copyright \
            /usr/share/doc/agentd/examples/jobs.d/demo-refresh.job \
            /usr/share/doc/agentd/examples/manifests.d/com.example.demo.manifest; do
        [ -e "$target$f" ] || problems+=("$f is missing")
    done
    [ -d "$target/etc/agentd/jobs.d" ] || problems+=("/etc/agentd/jobs.d is missing")
    [ -z "$(ls -A "$target/etc/agentd/jobs.d" 2>/dev/null)" ] || problems+=("/etc/agentd/jobs.d is not empty")
    local conffiles
    conffiles=$(inroot dpkg-query -W -f='${Conffiles}\n' agentd | awk 'NF { print $1 }' | sort | tr '\n' ' ')
    [ "$conffiles" = "/etc/agentd/agentd.conf /etc/agentd/manifests.d/local.manifest " ] ||
        problems+=("conffiles are '$conffiles'")
    inroot getent group agentd >/dev/null || problems+=("group agentd was not created")
    [ -L "$target/etc/systemd/system/multi-user.target.wants/agentd.service" ] ||
        problems+=("agentd.service is not enabled")
    local v
    v=$(inroot agentd --version 2>&1) && [ "$v" = "agentd $version" ] || problems+=("agentd --version: $v")
    v=$(inroot agentctl --version 2>&1) && [ "$v" = "agentctl $version" ] || problems+=("agentctl --version: $v")
    # No Swift toolchain in the root: every library resolves to a file of a Debian package.
    v=$(inroot ldd /usr/sbin/agentd /usr/bin/agentctl 2>&1) || problems+=("ldd failed: $v")
    ! grep -q "not found" <<<"$v" || problems+=("libraries not found: $(grep "not found" <<<"$v" | tr -s ' \n' ' ')")
    # The man pages render without warnings.
    for f in man8/agentd.8.gz man1/agentctl.1.gz man5/agentd.job.5.gz man1/agentd-transfer.1.gz; do
        v=$(MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$target/usr/share/man/$f" 2>&1 >/dev/null) ||
            problems+=("man $f failed")
        [ -z "$v" ] || problems+=("man $f: $v")
    done
    if [ ${#problems[@]} -gt 0 ]; then
        printf '    | %s\n' "${problems[@]}" >&2
        return 1
    fi
}

if [ "$install_ok" = 1 ]; then
    if check_installed; then
        record "installed files, conffiles, group agentd, service enabled, no Swift toolchain needed" PASS
    else
        record "installed files" FAIL
    fi
    # Offline, with the root's own systemd (no man: the root has no man-db; checked above).
    if inroot systemd-analyze verify --man=no /lib/systemd/system/agentd.service >"$log_dir/verify.log" 2>&1 &&
            [ ! -s "$log_dir/verify.log" ]; then
        record "systemd-analyze verify agentd.service" PASS
    else
        show_log "$log_dir/verify.log"
        record "systemd-analyze verify agentd.service" FAIL "log: $log_dir/verify.log"
    fi
    # The user unit, checked as a unit file (verify --user needs a running user manager).
    if inroot systemd-analyze verify --man=no /usr/lib/systemd/user/agentd.service >"$log_dir/verify-user.log" 2>&1 &&
            [ ! -s "$log_dir/verify-user.log" ]; then
        record "systemd-analyze verify the user unit agentd.service" PASS
    else
        show_log "$log_dir/verify-user.log"
        record "systemd-analyze verify the user unit agentd.service" FAIL "log: $log_dir/verify-user.log"
    fi
fi

# ---------------------------------------------------------------------------------------------
# 3. A job through the installed agent.

if [ "$install_ok" = 1 ]; then
    phase_start=$(date +%s)
    # Not through inroot: $! must be agentd itself (chroot and env exec it) for the signals below.
    chroot "$target" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
        /usr/sbin/agentd >"$log_dir/agentd.log" 2>&1 &
    agent_pid=$!
    agent_cgroup="$target/sys/fs/cgroup/agentd-runs.$agent_pid"
    socket="$target/run/agentd/agentd.sock"
    step="agentd listens on /run/agentd/agentd.sock"
    if wait_for 20 "the control socket" test -S "$socket"; then
        mode=$(stat -c '%a %g' "$socket")
        if [ "$mode" = "666 $(inroot getent group agentd | cut -d: -f3)" ]; then
            record "$step" PASS "mode 0666, group agentd, $cgroup_note"
        else
            record "$step" FAIL "socket mode and gid are $mode, expected 666 and group agentd's"
        fi
        # The job script, written beside and renamed in (a hidden name is ignored).
        cat >"$target/etc/agentd/jobs.d/.hello.tmp" <<'EOF'
#!/bin/sh
# agentd: Kind=processing Interval=none MaxRuntime=30s User=nobody
echo "STATUS=hi"
echo "hello from $(id -un) in $PWD"
EOF
        chmod 0755 "$target/etc/agentd/jobs.d/.hello.tmp"
        mv "$target/etc/agentd/jobs.d/.hello.tmp" "$target/etc/agentd/jobs.d/hello"
        listed() { inroot agentctl list --files | grep -q '^local\.hello .*registered'; }
        succeeded() { inroot agentctl history local.hello | grep -q ' success'; }
        if ! wait_for 10 "agentctl list to show local.hello" listed; then
            inroot agentctl list --files >&2 || true
            record "agentctl list shows local.hello" FAIL
        else
            record "agentctl list shows local.hello" PASS
            if ! out=$(inroot agentctl simulate launch local.hello 2>&1); then
                echo "    | $out" >&2
                record "agentctl simulate launch local.hello" FAIL
            else
                record "agentctl simulate launch local.hello" PASS "$out"
                if wait_for 20 "agentctl history to show success" succeeded; then
                    json=$(inroot agentctl history local.hello --json | sed 's|\\/|/|g')
                    if grep -q "hello from nobody in /var/lib/agentd/jobs/local.hello" <<<"$json"; then
                        record "agentctl history local.hello: success" PASS "ran as nobody in its STATE_DIRECTORY"
                    else
                        printf '%s\n' "$json" | sed 's/^/    | /' >&2
                        record "agentctl history local.hello: success" FAIL "the run's log tail does not say it ran as nobody in /var/lib/agentd/jobs/local.hello"
                    fi
                else
                    inroot agentctl history local.hello --json 2>&1 | sed 's/^/    | /' >&2 || true
                    record "agentctl history local.hello: success" FAIL
                fi
            fi
        fi
    else
        show_log "$log_dir/agentd.log"
        record "$step" FAIL "log: $log_dir/agentd.log"
    fi
    # Stop it as systemd would (SIGTERM) and expect a clean exit with the socket gone.
    if [ -n "$agent_pid" ] && kill -0 "$agent_pid" 2>/dev/null; then
        kill -TERM "$agent_pid"
        status=0
        deadline=$(($(date +%s) + 20))
        while kill -0 "$agent_pid" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do sleep 0.05; done
        if kill -0 "$agent_pid" 2>/dev/null; then
            show_log "$log_dir/agentd.log"
            record "agentd stops on SIGTERM" FAIL "still running 20 s after SIGTERM"
            stop_agent
        else
            wait "$agent_pid" || status=$?
            agent_pid=""
            if [ "$status" = 0 ] && [ ! -e "$socket" ]; then
                record "agentd stops on SIGTERM" PASS "exit 0, socket removed, $(($(date +%s) - phase_start)) s for the run"
            else
                show_log "$log_dir/agentd.log"
                record "agentd stops on SIGTERM" FAIL "exit status $status$([ -e "$socket" ] && echo ', socket left behind')"
            fi
        fi
    else
        stop_agent
    fi
    # Outside systemd nothing removes the agent's parent cgroup of its runs (systemd trims a
    # stopped unit's delegated subtree); remove it here so the host keeps no trace.
    if [ -d "$agent_cgroup" ]; then
        find "$agent_cgroup" -depth -type d -exec rmdir {} + 2>/dev/null || true
        echo "note: agentd left its cgroup $(basename "$agent_cgroup") behind after it stopped (removed)"
    fi
fi

# ---------------------------------------------------------------------------------------------
# 4. The service under systemd: the root booted with systemd-nspawn runs service-test.sh.

service_test() {
    local unit="$target/etc/systemd/system/agentd-package-test.service"
    local dropin="$target/etc/systemd/system/agentd.service.d/package-test.conf"
    local wants="$target/etc/systemd/system/multi-user.target.wants/agentd-package-test.service"
    local notify=no
    # An agent that speaks sd_notify runs the unit as shipped (with a short watchdog to see it
    # kept alive); one that does not yet gets Type=simple for this test, which says so.
    mkdir -p "$(dirname "$dropin")"
    if grep -q 'READY=1' "$target/usr/sbin/agentd"; then
        notify=yes
        printf '[Service]\nWatchdogSec=3s\n' >"$dropin"
    else
        printf '[Service]\nType=simple\nWatchdogSec=0\n' >"$dropin"
    fi
    install -m 0755 "$root_dir/packaging/service-test.sh" "$target/root/service-test.sh"
    rm -rf "$target/root/service-test"
    printf '%s\n' "[Unit]" "Description=agentd package test" "After=multi-user.target" \
        "[Service]" "Type=oneshot" "Environment=AGENTD_NOTIFY=$notify" "ExecStart=/root/service-test.sh" \
        "ExecStopPost=/bin/systemctl --no-block poweroff" "StandardOutput=journal+console" >"$unit"
    ln -sf ../agentd-package-test.service "$wants"

    # Without systemd on the host, nspawn makes payload/ and supervisor/ cgroups beside itself in
    # every hierarchy; those that were not there before are removed after (they are empty then).
    local own new_cgroups=() mount_point dir
    own=$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
    for mount_point in $(awk '{ for (i = 7; i < NF && $i != "-"; i++) ; type = $(i + 1)
            if (type == "cgroup2" || (type == "cgroup" && $(i + 3) ~ /name=systemd/)) print $5 }' /proc/self/mountinfo); do
        for dir in "$mount_point${own%/}/payload" "$mount_point${own%/}/supervisor"; do
            [ -e "$dir" ] || new_cgroups+=("$dir")
        done
    done

    # nspawn needs a terminal for the container's console: script(1) gives it one.
    timeout -k 10 300 script -qfec "systemd-nspawn -q --register=no --keep-unit --private-network -D '$target' -b" \
        "$log_dir/boot.log" >/dev/null 2>&1 </dev/null || true
    for dir in "${new_cgroups[@]}"; do
        [ -d "$dir" ] && find "$dir" -depth -type d -exec rmdir {} + 2>/dev/null
    done
    local results_file="$target/root/service-test/results" verdict text
    if [ ! -f "$results_file" ]; then
        if grep -q "Welcome to" "$log_dir/boot.log" 2>/dev/null; then
            record "agentd.service under systemd" FAIL "the test did not run; boot log: $log_dir/boot.log"
        else
            record "agentd.service under systemd" SKIP "systemd-nspawn could not boot the root here; boot log: $log_dir/boot.log"
        fi
    else
        [ "$notify" = yes ] ||
            record "service: agentd does not send READY=1 yet, so this ran with a Type=simple drop-in" NOTE
        while read -r verdict text; do
            case $verdict in
                PASS | FAIL | NOTE) record "service: $text" "$verdict" ;;
            esac
        done <"$results_file"
        grep -q "^DONE" "$results_file" || record "service: the in-container test did not finish" FAIL "boot log: $log_dir/boot.log"
        cp "$target/root/service-test/journal.txt" "$log_dir/service-journal.txt" 2>/dev/null || true
        # What convert and check printed, and the converted job files, to look at after a failure.
        rm -rf "$log_dir/service-test"
        cp -r "$target/root/service-test" "$log_dir/service-test" 2>/dev/null || true
    fi
    # The test's own files go; what booting left in the root is excluded from the purge check.
    rm -rf "$unit" "$wants" "$(dirname "$dropin")" "$target/root/service-test" "$target/root/service-test.sh"
}

service_seconds=0
if [ "$install_ok" = 1 ] && [ "${AGENTD_TEST_SYSTEMD:-1}" = 1 ]; then
    phase_start=$(date +%s)
    if command -v systemd-nspawn >/dev/null && command -v script >/dev/null; then
        unmount_all
        service_test
        mount_root
        service_seconds=$(($(date +%s) - phase_start))
    else
        record "agentd.service under systemd" SKIP "systemd-nspawn is missing (./scripts/install-deps.sh packaging)"
    fi
fi

# ---------------------------------------------------------------------------------------------
# 5. Purge: nothing of the package is left. The job script is the administrator's and stays.

if [ "$install_ok" = 1 ]; then
    phase_start=$(date +%s)
    if inroot apt-get purge -y --autoremove agentd >"$log_dir/purge.log" 2>&1; then
        problems=()
        inroot dpkg -L agentd >/dev/null 2>&1 && problems+=("dpkg -L agentd still lists files")
        inroot dpkg-query -W -f='${db:Status-Abbrev}' agentd 2>/dev/null | grep -q '^[a-z][^n]' &&
            problems+=("dpkg still knows agentd: $(inroot dpkg-query -W -f='${db:Status-Abbrev}' agentd)")
        for f in /usr/sbin/agentd /usr/bin/agentctl /usr/lib/agentd /var/lib/agentd /run/agentd \
                /lib/systemd/system/agentd.service /usr/share/doc/agentd /usr/lib/sysusers.d/agentd.conf \
                /etc/agentd/agentd.conf /etc/agentd/manifests.d /etc/systemd/system/multi-user.target.wants/agentd.service; do
            [ -e "$target$f" ] || [ -L "$target$f" ] && problems+=("$f is left")
        done
        left=$(cd "$target/etc" && find agentd -mindepth 1 2>/dev/null | sort | tr '\n' ' ')
        [ "$left" = "agentd/jobs.d agentd/jobs.d/hello " ] &&
            grep -q "kept /etc/agentd" "$log_dir/purge.log" ||
            problems+=("/etc/agentd should hold only the administrator's jobs.d/hello, with a notice; holds: $left")
        rm -f "$target/etc/agentd/jobs.d/hello" && rmdir "$target/etc/agentd/jobs.d" "$target/etc/agentd" 2>/dev/null || true
        rm -f "$target/tmp/$(basename "$deb")"
        # Every file the install added is gone again (the group and addgroup's backups aside).
        snapshot >"$work/after.txt"
        added=$(comm -13 "$work/before.txt" "$work/after.txt" |
            grep -vxE '\./etc/(group|gshadow|passwd|shadow)-' || true)
        [ -z "$added" ] || problems+=("left behind: $(tr '\n' ' ' <<<"$added")")
        if [ ${#problems[@]} -eq 0 ]; then
            record "apt-get purge: nothing left" PASS "admin's jobs.d/hello kept with a notice, group agentd kept; $(($(date +%s) - phase_start)) s"
        else
            printf '    | %s\n' "${problems[@]}" >&2
            record "apt-get purge: nothing left" FAIL
        fi
    else
        show_log "$log_dir/purge.log"
        record "apt-get purge -y agentd" FAIL "log: $log_dir/purge.log"
    fi
fi

cleanup
# The unpacked root (some 300 MB) goes; the cached tar stays for the next run.
if [ "${AGENTD_TEST_KEEP_ROOT:-0}" = 1 ]; then
    echo "package-test: kept the root in $target (AGENTD_TEST_KEEP_ROOT=1)"
else
    remove_root
fi

# ---------------------------------------------------------------------------------------------
# 6. lintian.

lintian --display-info --tag-display-limit=0 "$deb" >"$log_dir/lintian.log" 2>&1 || true
grep -v 'running with root privileges' "$log_dir/lintian.log" >"$log_dir/lintian.tags" || true
errors=$(grep -c '^E: ' "$log_dir/lintian.tags" || true)
warnings=$(grep -c '^W: ' "$log_dir/lintian.tags" || true)
infos=$(grep -c '^I: ' "$log_dir/lintian.tags" || true)
if [ "$errors" -eq 0 ]; then
    record "lintian" PASS "$errors errors, $warnings warnings, $infos info tags; log: $log_dir/lintian.tags"
else
    grep -E '^(E|W): ' "$log_dir/lintian.tags" | sed 's/^/    | /' >&2
    record "lintian" FAIL "$errors errors, $warnings warnings"
fi
grep '^W: ' "$log_dir/lintian.tags" | sed 's/^/    | /' || true

# ---------------------------------------------------------------------------------------------
# 7. The sizes docs/packaging.md states are this build's (within 10 %).

if sizes=$("$root_dir/packaging/doc-sizes.sh" --check 2>&1); then
    record "sizes in docs/packaging.md" PASS "$(sed -n 's/^measured: //p' <<<"$sizes")"
else
    printf '%s\n' "$sizes" | sed 's/^/    | /' >&2
    record "sizes in docs/packaging.md" FAIL "run packaging/doc-sizes.sh --update"
fi

# ---------------------------------------------------------------------------------------------

total=$(($(date +%s) - started))
echo
echo "package-test: $(basename "$deb")"
printf '  %s\n' "${results[@]}"
echo "  time: ${total} s in all (root: ${root_seconds} s, ${cache_note}; systemd boot and service checks: ${service_seconds} s)"
if [ "$failed" -eq 0 ]; then
    echo "package-test: PASS"
else
    echo "package-test: FAIL (logs in $log_dir)"
    exit 1
fi
