#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Inside a booted copy of the convert-compare root (packaging/convert-compare.sh): launches every
# scheduled job of the machine once, in the order of /root/compare/items, the way MODE runs it,
# and writes one line per job to /root/compare/MODE/results:
#   LABEL <TAB> ENDED <TAB> USER <TAB> FILES (the files the run wrote, by path, sorted)
# MODE systemd: a timer's service with `systemctl --wait start`, a cron line with /bin/sh -c as
# its user in cron's environment, a run-parts script as root as run-parts runs it.
# MODE agentd: the converted job (`agentctl simulate launch`, policy out of the way), its user
# from the job file.
set -uo pipefail
mode=$1
out=/root/compare/$mode
mkdir -p "$out"
: >"$out/results"
deadline_seconds=900

# The files a run wrote: regular files newer than the stamp, outside what the machine itself,
# the agent's own state and private temporary directories (PrivateTmp=) change. sysstat's daily
# data file is written in the background (it showed up beside whichever job ran at the time, in
# both copies), and so is /var/log/wtmp (the console's agetty records its prompt there a few seconds
# into the boot: beside a run-parts of an empty cron.hourly on 7 December); both are left out.
written() {
    find / -xdev \( -path /proc -o -path /sys -o -path /run -o -path /dev -o -path /tmp -o -path /var/tmp \
        -o -path /var/log/journal -o -path /var/lib/agentd -o -path /root/compare -o -path /var/lib/systemd \
        -o -path /var/cache/private -o -path /var/lib/private \) -prune -o -type f -newer "$1" \
        ! -path '/var/log/sysstat/sa[0-9][0-9]' ! -path /var/log/wtmp -print |
        sort | tr '\n' ' '
}

cron_env() { # cron_env USER PATHVALUE: the environment cron gives a job
    local home
    home=$(getent passwd "$1" | cut -d: -f6)
    echo "HOME=${home:-/}" "LOGNAME=$1" "USER=$1" "SHELL=/bin/sh" "PATH=$2"
}

run_systemd() { # LABEL KIND SPEC...
    local kind=$2 unit user ended code i
    case $kind in
        timer)
            unit=$3
            # A oneshot's start returns when it has run (systemctl --wait needs a D-Bus daemon,
            # which this root does not have); anything else is waited for until inactive.
            timeout "$deadline_seconds" systemctl start "$unit" >/dev/null 2>&1
            # A Type=simple service (anacron -d) is active while its process lives: wait for it.
            for ((i = 0; i < deadline_seconds * 5; i++)); do
                case $(systemctl is-active "$unit") in
                    activating | deactivating | reloading) sleep 0.2 ;;
                    active) [ "$(systemctl show -p MainPID --value "$unit")" != 0 ] && sleep 0.2 || break ;;
                    *) break ;;
                esac
            done
            # RemainAfterExit=yes (below) keeps a unit that ran loaded, active or failed; one whose
            # Condition…= was false never started and was unloaded: it shows no start at all.
            local state started
            state=$(systemctl show -p ActiveState --value "$unit")
            started=$(systemctl show -p ExecMainStartTimestampMonotonic --value "$unit")
            code=$(systemctl show -p ExecMainStatus --value "$unit")
            if [ "$state" = failed ]; then
                ended="$(systemctl show -p Result --value "$unit") exit=$code"
            elif [ "${started:-0}" = 0 ]; then
                ended="skipped (condition)"
            else
                ended="success exit=$code"
            fi
            user=$(systemctl show -p User --value "$unit")
            ;;
        cron)
            user=$3
            local path=$4 command=$5
            # shellcheck disable=SC2046 # the environment is words
            (cd "$(getent passwd "$user" | cut -d: -f6)" 2>/dev/null || cd /
             timeout "$deadline_seconds" runuser -u "$user" -- env -i $(cron_env "$user" "$path") /bin/sh -c "$command" \
                 >/dev/null 2>&1)
            code=$?
            ended=$([ "$code" = 0 ] && echo "success exit=0" || echo "exit-code exit=$code")
            ;;
        script)
            user=root
            (cd / && timeout "$deadline_seconds" env -i $(cron_env root /usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin) "$3" \
                >/dev/null 2>&1)
            code=$?
            ended=$([ "$code" = 0 ] && echo "success exit=0" || echo "exit-code exit=$code")
            ;;
    esac
    echo "$ended" "${user:-root}"
}

ended_run() { # the newest run's stop reason once it has ended, else nothing
    agentctl history "$1" --limit 1 --json 2>/dev/null |
        python3 -c 'import json,sys
runs = json.load(sys.stdin)
r = runs[0] if isinstance(runs, list) and runs else None
if r and r.get("endedAt"):
    print(r.get("stopReason", "?"), "exit=%s" % r.get("exitStatus", "-"))' 2>/dev/null
}

run_agentd() { # LABEL ID
    local id=$2 user ended="" i
    user=$(sed -n 's/^User=//p' "/etc/agentd/jobs.d/$3" | tail -n 1)
    agentctl simulate launch "$id" >/dev/null 2>&1 || { echo "launch-refused ${user:-root}"; return; }
    for ((i = 0; i < deadline_seconds * 5; i++)); do
        ended=$(ended_run "$id")
        [ -n "$ended" ] && break
        sleep 0.2
    done
    echo "${ended:-did-not-end} ${user:-nobody}"
}

if [ "$mode" = systemd ]; then
    # systemd unloads a finished oneshot at once (`systemctl show` then describes a fresh unit):
    # RemainAfterExit=yes keeps each timer's service loaded after it ran, to read how it ended.
    while IFS=$'\t' read -r _ kind unit _; do
        [ "$kind" = timer ] || continue
        mkdir -p "/run/systemd/system/$unit.d"
        printf '[Service]\nRemainAfterExit=yes\n' >"/run/systemd/system/$unit.d/convert-compare.conf"
    done </root/compare/items-systemd
    systemctl daemon-reload
fi

if [ "$mode" = agentd ]; then
    # Nothing launches on its own while the jobs go in; simulate launch passes the pause.
    agentctl pause >/dev/null
    for f in /root/compare/jobs/*.job; do cp "$f" /etc/agentd/jobs.d/; done
    for ((i = 0; i < 100; i++)); do
        [ "$(agentctl list --json 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" \
            -ge "$(ls /root/compare/jobs/*.job | wc -l)" ] && break
        sleep 0.2
    done
    agentctl list >"$out/list.txt" 2>&1
fi

while IFS=$'\t' read -r label kind a b c; do
    stamp=$(mktemp /root/compare/stamp.XXXXXX)
    touch "$stamp"
    if [ "$mode" = systemd ]; then
        outcome=$(run_systemd "$label" "$kind" "$a" "$b" "$c")
    else
        outcome=$(run_agentd "$label" "$a" "$b")
    fi
    user=${outcome##* }
    printf '%s\t%s\t%s\t%s\n' "$label" "${outcome% *}" "$user" "$(written "$stamp")" >>"$out/results"
    rm -f "$stamp"
done </root/compare/items-$mode

[ "$mode" = agentd ] && agentctl history -n 200 >"$out/history.txt" 2>&1
journalctl -b --no-pager >"$out/journal.txt" 2>&1
echo DONE >>"$out/results"
