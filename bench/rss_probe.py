#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Where an idle agent's resident memory is (issue 17): a release agentd with N jobs (default 100,
no Interval=) is started as bench_idle starts it, answers one `status`, and its
/proc/PID/smaps_rollup, its largest mappings and the RSS of each file it maps are printed.
AGENTD_BIN_DIR picks the binaries (default .build-static/release); ROWS how many mappings.
A diagnostic, not a benchmark: make bench does not run it."""
import sys, os, time, re
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run
jobs = int(sys.argv[1]) if len(sys.argv) > 1 else 100
sb = run.Sandbox(jobs, interval="none")
a = run.Agent(sb)
try:
    a.wait_for(r"ready:", timeout=120)
    run.status_answers(sb.socket)
    time.sleep(1)
    pid = a.proc.pid
    print(open("/proc/%d/smaps_rollup" % pid).read())
    # per mapping Rss
    cur = None; rows = []
    for line in open("/proc/%d/smaps" % pid):
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            parts = line.split()
            cur = [parts[0], parts[1], parts[5] if len(parts) > 5 else "[anon]", 0, 0, 0]
            rows.append(cur)
        elif line.startswith("Rss:"):
            cur[3] = int(line.split()[1])
        elif line.startswith("Private_Dirty:"):
            cur[4] = int(line.split()[1])
        elif line.startswith("Anonymous:"):
            cur[5] = int(line.split()[1])
    rows.sort(key=lambda r: -r[3])
    for r in rows[:int(os.environ.get("ROWS","25"))]:
        print("%8d kB rss %8d dirty %8d anon %s %s %s" % (r[3], r[4], r[5], r[1], r[2], r[0]))
    agg = {}
    for r in rows:
        agg[r[2]] = agg.get(r[2], 0) + r[3]
    for k, v in sorted(agg.items(), key=lambda kv: -kv[1]):
        print("%8d kB %s" % (v, k))
    print("threads", os.listdir("/proc/%d/task" % pid))
finally:
    a.stop(); sb.cleanup()
