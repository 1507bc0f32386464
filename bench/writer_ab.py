#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Two agentd builds side by side, for a change that should move only some figures (issue 32 item 1:
the state writer's thread). Usage: bench/writer_ab.py BEFORE_BIN_DIR AFTER_BIN_DIR [ROUNDS]

Each round runs both builds one after the other (alternating which goes first), so a machine that
is busy (other builds) weighs on both alike; the figures are the medians over the rounds, and the
ratio after ÷ before is what to read. It prints; it does not touch BENCHMARKS.md.

  reload        p99 from an atomic rename of a new .job into jobs.d until agentd registered it,
                200 changes with 10,000 jobs loaded (run.bench_reload), and the C inotify
                watcher's p99 in the same run.
  launching     `status` round trips while due jobs launch (run.bench_scheduler with
                SCHEDULER_JOBS jobs, half due at start, MaxConcurrent=8): p99.
  submit-wait   200 sequential `submit --wait` ÷ 200 sequential `status` (events.bench_submit_wait).
"""
import os, statistics, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402
import events  # noqa: E402

SCHEDULER_JOBS = int(os.environ.get("SCHEDULER_JOBS", "2000"))


def measure(bin_dir):
    run.BIN = bin_dir
    agent, c, _ = run.bench_reload(10000)
    _, (launching, _) = run.bench_scheduler(SCHEDULER_JOBS)
    submit_wait = events.bench_submit_wait()
    return {
        "reload p99 ms": run.percentile(agent, 0.99) * 1000,
        "reload C p99 ms": run.percentile(c, 0.99) * 1000,
        "status while launching p99 ms": run.percentile(launching, 0.99),
        "status while launching p50 ms": statistics.median(launching),
        "submit --wait ÷ status": submit_wait.submit / submit_wait.status,
    }


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    before, after = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    results = {"before": [], "after": []}
    for index in range(rounds):
        order = [("before", before), ("after", after)]
        if index % 2:
            order.reverse()
        for name, bin_dir in order:
            figures = measure(bin_dir)
            results[name].append(figures)
            print("round %d %s: %s" % (index + 1, name, ", ".join("%s %.3f" % kv for kv in figures.items())), flush=True)
    print("\n| figure | before | after | after ÷ before |")
    print("| --- | ---: | ---: | ---: |")
    for key in results["before"][0]:
        b = statistics.median(r[key] for r in results["before"])
        a = statistics.median(r[key] for r in results["after"])
        print("| %s | %.3f | %.3f | %.2f× |" % (key, b, a, a / b if b else float("nan")))


if __name__ == "__main__":
    main()
