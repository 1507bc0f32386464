#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# make convert-compare (root, network; about 15 minutes): does a converted machine run as it did?
# (issue 26's "Done when".)
#
# 1. Unpacks package-test's cached Debian 12 root and installs into it, from the Debian mirror,
#    packages that ship timers, cron.d files and cron scripts, and the agentd package
#    (packaging/build/agentd_*.deb: make deb).
# 2. Runs `agentctl convert --system` there and `agentctl check` on what it wrote.
# 3. Disables the machine's timers and cron (nothing fires on its own), copies the root twice and
#    boots each copy with systemd-nspawn: in one every scheduled job runs once as systemd or cron
#    runs it, in the other every converted job runs once under the installed agentd.service
#    (packaging/convert-compare-run.sh).
# 4. Prints the table: per job, how it ended, as which user, and which files it wrote, each way.
# Leaves packaging/build/convert-compare/{table.md,convert.txt,check.txt,*/results}.
set -euo pipefail

root_dir=$(cd "$(dirname "$0")/.." && pwd)
work="$root_dir/packaging/build/convert-compare"
packages=(logrotate man-db plocate sysstat certbot apt dpkg e2fsprogs util-linux mdadm smartmontools
          debsums chkrootkit unattended-upgrades popularity-contest cron anacron exim4-base)

die() { echo "convert-compare: $*" >&2; exit 1; }

table() { # the comparison table from the two results files
python3 - "$work" <<'EOF'
import sys
work = sys.argv[1]
def read(mode):
    rows = {}
    for line in open("%s/%s-results/results" % (work, mode)):
        parts = line.rstrip("\n").split("\t")
        if len(parts) == 4:
            rows[parts[0]] = parts[1:]
    return rows
systemd, agentd = read("systemd"), read("agentd")
def ok(ended):
    return ended.startswith("success") or ended.startswith("skipped")
out = ["| job (converted from) | systemd / cron | agentd | user | files written | same? |", "| --- | --- | --- | --- | --- | --- |"]
same_count = 0
for label, (s_end, s_user, s_files) in systemd.items():
    a_end, a_user, a_files = agentd.get(label, ["missing", "-", ""])
    same_end = ok(s_end) == ok(a_end) and s_end.split("exit=")[-1] == a_end.split("exit=")[-1] or (s_end.startswith("skipped") and a_end.startswith("skipped"))
    same_user = s_user == a_user
    same_files = s_files.split() == a_files.split()
    same = same_end and same_user and same_files
    same_count += same
    files = ", ".join(f for f in s_files.split()) or "none"
    if not same_files:
        files = "systemd: %s; agentd: %s" % (files, ", ".join(a_files.split()) or "none")
    out.append("| %s | %s | %s | %s | %s | %s |" % (label, s_end, a_end,
               s_user if same_user else "%s / %s" % (s_user, a_user), files, "yes" if same else "**no**"))
out.append("")
out.append("%d of %d jobs ended the same way, as the same user, writing the same files." % (same_count, len(systemd)))
open(work + "/table.md", "w").write("\n".join(out) + "\n")
print("\n".join(out))
EOF
}

# CONVERT_COMPARE_TABLE_ONLY=1: print the table again from the results of the last run.
if [ "${CONVERT_COMPARE_TABLE_ONLY:-0}" = 1 ]; then
    table
    exit 0
fi
[ "$(id -u)" -eq 0 ] || die "needs root (nspawn): run it as root or with sudo"
deb=$(ls "$root_dir"/packaging/build/agentd_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || die "no packaging/build/agentd_*.deb: make deb first (make convert-compare does)"
base_tar=$("$root_dir/packaging/debian-root.sh")

nspawn() { # nspawn DIR COMMAND...: a command in the root, with the host's network
    local dir=$1
    shift
    systemd-nspawn -q --register=no --keep-unit -D "$dir" "$@"
}

rm -rf --one-file-system "$work"
mkdir -p "$work/base"
echo "convert-compare: unpacking $base_tar"
tar -xf "$base_tar" -C "$work/base"
cp "$deb" "$work/base/root/agentd.deb"
echo "convert-compare: installing ${#packages[@]} packages and $(basename "$deb") (log: $work/install.log)"
nspawn "$work/base" --setenv=DEBIAN_FRONTEND=noninteractive /bin/sh -c \
    "apt-get update -q && apt-get install -y -q --no-install-recommends ${packages[*]} python3 /root/agentd.deb" \
    >"$work/install.log" 2>&1 || die "installing failed: see $work/install.log"
nspawn "$work/base" dpkg-query -W -f '${Package} ${Version}\n' "${packages[@]}" agentd >"$work/versions.txt"

echo "convert-compare: agentctl convert --system; agentctl check"
mkdir -p "$work/base/root/compare/etc/manifests.d"
nspawn "$work/base" /usr/bin/agentctl convert --system --output-dir /root/compare/jobs >"$work/convert.txt" 2>&1 || true
cp "$work/base/etc/agentd/manifests.d/local.manifest" "$work/base/root/compare/etc/manifests.d/"
cp -r "$work/base/root/compare/jobs" "$work/base/root/compare/etc/jobs.d"
nspawn "$work/base" /usr/bin/agentctl check /root/compare/etc >"$work/check.txt" 2>&1 || true

# The items, in one order for both runs, from each job's header: what it was converted from.
python3 - "$work/base" <<'EOF'
import glob, os, re, sys
root = sys.argv[1]
systemd_items, agentd_items = [], []
for path in sorted(glob.glob(root + "/root/compare/jobs/*.job")):
    text = open(path).read()
    header = re.search(r"converted by agentctl convert from (.*)", text)
    ident = re.search(r"^Identifier=(.*)$", text, re.M)
    if not header or not ident or "MAILTO=" in header.group(1):
        continue  # mail-report jobs run only as another job's OnFailure=
    source = header.group(1).strip()
    name = os.path.basename(path)
    timer = re.search(r"(\S+\.timer)(?:,| and) (\S+\.service)", source)
    line = re.fullmatch(r"(\S+):(\d+)", source)
    if timer:
        label = os.path.basename(timer.group(1))
        systemd_items.append([label, "timer", os.path.basename(timer.group(2))])
    elif line:
        file, number = line.group(1), int(line.group(2))
        lines = open(root + file, errors="replace").read().split("\n")
        env_path = "/usr/bin:/bin"
        for earlier in lines[:number - 1]:
            m = re.match(r"\s*PATH\s*=\s*(.*)", earlier)
            if m:
                env_path = m.group(1).strip()
        fields = lines[number - 1].split(None, 6 if not lines[number - 1].lstrip().startswith("@") else 2)
        user, command = (fields[1], fields[2]) if fields[0].startswith("@") else (fields[5], fields[6])
        label = "%s:%d" % (file, number)
        systemd_items.append([label, "cron", user, env_path, command])
    else:
        label = source
        systemd_items.append([label, "script", source])
    agentd_items.append([label, "agentd", ident.group(1), name])
# anacron goes last: it runs cron.daily, weekly and monthly after its anacrontab's delays.
last = [i for i, item in enumerate(agentd_items) if "anacron" in item[0]]
order = [i for i in range(len(agentd_items)) if i not in last] + last
systemd_items = [systemd_items[i] for i in order]
agentd_items = [agentd_items[i] for i in order]
for mode, items in (("systemd", systemd_items), ("agentd", agentd_items)):
    with open(root + "/root/compare/items-" + mode, "w") as out:
        for item in items:
            out.write("\t".join(item) + "\n")
print("convert-compare: %d jobs to compare" % len(agentd_items))
EOF

# Nothing fires on its own: the converted timers, cron and anacron are disabled in both copies.
for link in "$work/base"/etc/systemd/system/timers.target.wants/*.timer; do
    rm -f "$link"
done
nspawn "$work/base" systemctl disable -q cron.service anacron.service anacron.timer >/dev/null 2>&1 || true
install -m 0755 "$root_dir/packaging/convert-compare-run.sh" "$work/base/root/compare/run.sh"

boot() { # boot MODE: a copy of the base booted with the run for MODE, powered off after
    local mode=$1 dir="$work/$1"
    cp -a "$work/base" "$dir"
    printf '%s\n' "[Unit]" "Description=convert-compare $mode" "After=multi-user.target" \
        "[Service]" "Type=oneshot" "ExecStart=/root/compare/run.sh $mode" "TimeoutStartSec=3600" \
        "ExecStopPost=/bin/systemctl --no-block poweroff" >"$dir/etc/systemd/system/convert-compare.service"
    ln -sf ../convert-compare.service "$dir/etc/systemd/system/multi-user.target.wants/convert-compare.service"
    [ "$mode" = systemd ] && rm -f "$dir/etc/systemd/system/multi-user.target.wants/agentd.service"
    echo "convert-compare: booting the $mode copy"
    timeout -k 10 3600 script -qfec "systemd-nspawn -q --register=no --keep-unit -D '$dir' -b" \
        "$work/boot-$mode.log" >/dev/null 2>&1 </dev/null || true
    cp -r "$dir/root/compare/$mode" "$work/$mode-results" 2>/dev/null || true
    grep -q '^DONE' "$work/$mode-results/results" 2>/dev/null || die "the $mode run did not finish; see $work/boot-$mode.log"
}
# The two copies boot side by side: anacron alone waits 15 minutes (its anacrontab's delays).
boot systemd &
systemd_boot=$!
boot agentd &
agentd_boot=$!
wait "$systemd_boot" || die "the systemd copy failed"
wait "$agentd_boot" || die "the agentd copy failed"

table
