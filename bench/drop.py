# SPDX-License-Identifier: Apache-2.0
"""`status` while 10,000 job files are dropped into jobs.d at once (issue 17), run by bench/run.py
(`--only drop` runs just this).

10,000 `.job` files are written to a staging directory on the same file system, then renamed
into `jobs.d` as fast as one thread can (a package unpacking, an rsync); meanwhile `status` round
trips go on back to back on new connections until the agent counts all 10,000. Baseline: the same
round trips against the same agent with 100 jobs, before the drop.
"""
import os, statistics, threading, time

import run

FILES = 10000


def status(path):
    """One `status` round trip on a new connection: (milliseconds, jobCount)."""
    t0 = time.monotonic()
    answer = run.status_request(path, timeout=30)
    elapsed = (time.monotonic() - t0) * 1e3
    assert answer.get("ok") is True, answer
    return elapsed, answer["status"]["jobCount"]


def measure():
    sandbox = run.Sandbox(100, interval="none")
    staging = os.path.join(sandbox.root, "staging")
    os.makedirs(staging)
    for i in range(FILES):
        sandbox.write_job(os.path.join(staging, "drop%05d.job" % i), "drop%05d" % i, interval="none")
    agent = run.Agent(sandbox)
    try:
        agent.wait_for(r"ready:", timeout=120)
        quiet = [status(sandbox.socket)[0] for _ in range(100)]
        names = sorted(os.listdir(staging))
        moved = threading.Event()

        def drop():
            for name in names:
                os.rename(os.path.join(staging, name), os.path.join(sandbox.jobs, name))
            moved.set()

        busy = []
        t0 = time.monotonic()
        mover = threading.Thread(target=drop)
        mover.start()
        count = 0
        deadline = t0 + 300
        while count < FILES + 100:
            elapsed, count = status(sandbox.socket)
            busy.append(elapsed)
            if time.monotonic() > deadline:
                raise TimeoutError("the agent counted %d of %d jobs after 300 s" % (count, FILES + 100))
        loaded = time.monotonic() - t0
        mover.join()
        return quiet, busy, loaded
    finally:
        agent.stop()
        sandbox.cleanup()


def main():
    quiet, busy, loaded = measure()
    p = run.percentile
    print("drop of %d files: status p50 %.2f ms p99 %.2f ms max %.2f ms (%d samples), all loaded in %.2f s; "
          "quiet p50 %.2f ms p99 %.2f ms" % (FILES, statistics.median(busy), p(busy, 0.99), max(busy), len(busy),
                                            loaded, statistics.median(quiet), p(quiet, 0.99)), flush=True)
    lines = [
        "## Status while 10,000 job files are dropped at once (issue 17; target p99 < 20 ms)",
        "",
        "10,000 `.job` files renamed into `jobs.d` as fast as one thread can, into an agent with 100 jobs;",
        "`status` round trips back to back on new connections from the first rename until the agent counts",
        "all 10,100. Baseline: the same round trips before the drop. `bench/run.py --only drop` (bench/drop.py).",
        "",
        "| | p50 | p99 | max | samples |",
        "| --- | ---: | ---: | ---: | ---: |",
        "| quiet, 100 jobs (baseline) | %.2f ms | %.2f ms | %.2f ms | %d |" % (statistics.median(quiet), p(quiet, 0.99), max(quiet), len(quiet)),
        "| during the drop | %.2f ms | %.2f ms | %.2f ms | %d |" % (statistics.median(busy), p(busy, 0.99), max(busy), len(busy)),
        "",
        "All 10,000 registered %.2f s after the first rename; p99 during the drop %.1f× the quiet p99." % (loaded, p(busy, 0.99) / max(p(quiet, 0.99), 1e-6)),
        "",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
