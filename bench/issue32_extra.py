#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Two figures issue 32's table asks for beside their baselines, measured in the same run on the
same agent. Usage: bench/issue32_extra.py [BIN_DIR ...] (default: run.py's build); prints, does
not touch BENCHMARKS.md. Needs root (the sandbox's mount namespace).

  sandbox   launch rate of a job with ProtectSystem=strict and PrivateTmp=yes ÷ the same job
            without them (target ≥ 0.5×): LAUNCHES `simulate launch` requests of each, in one
            burst, until the last run is recorded ended; the two alternate over ROUNDS rounds.
  request   200 sequential `agentctl request local.feed --earliest +1h` (each durable before it
            is answered, none launches) ÷ 200 sequential `agentctl status` (target ≤ 1.2×).
"""
import os, statistics, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402
import events  # noqa: E402

LAUNCHES = int(os.environ.get("LAUNCHES", "1000"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
CALLS = 200


def launch_burst(agent, sandbox, identifier, cursor):
    start = time.monotonic()
    answers = run.request_many(sandbox.socket, [b'{"command":"simulate-launch","target":"%s"}' % identifier.encode()] * LAUNCHES)
    assert all(a.get("ok") for a in answers), answers[:3]
    ended = 0
    while ended < LAUNCHES:
        m, cursor = agent.wait_for(r"of %s ended: (\S+)" % identifier.replace(".", r"\."), start=cursor, timeout=300)
        assert m.group(1) == "success", m.string
        ended += 1
    return LAUNCHES / (time.monotonic() - start), cursor


def bench_sandbox():
    # Not under /tmp: PrivateTmp=yes gives the run a /tmp of its own, where the sandbox's state
    # directory (and so the job's working directory) would not exist.
    tempfile.tempdir = "/var/lib"
    try:
        sandbox = run.Sandbox(0)
    finally:
        tempfile.tempdir = None
    run.write_raw_job(sandbox, "raw", "[Job]\nIdentifier=local.raw\nKind=continued\nExec=/bin/true\nProgressTimeout=1h\n")
    run.write_raw_job(sandbox, "boxed", "[Job]\nIdentifier=local.boxed\nKind=continued\nExec=/bin/true\n"
                      "ProgressTimeout=1h\nProtectSystem=strict\nPrivateTmp=yes\n")
    agent = run.Agent(sandbox)
    try:
        _, cursor = agent.wait_for(r"ready:", timeout=60)
        raw, boxed = [], []
        for index in range(ROUNDS):
            order = [("local.raw", raw), ("local.boxed", boxed)]
            if index % 2:
                order.reverse()
            for identifier, rates in order:
                rate, cursor = launch_burst(agent, sandbox, identifier, cursor)
                rates.append(rate)
        return statistics.median(raw), statistics.median(boxed)
    finally:
        agent.stop()
        sandbox.cleanup()


def bench_request():
    sandbox = run.Sandbox(0)
    run.write_raw_job(sandbox, "feed", "[Job]\nIdentifier=local.feed\nKind=refresh\nExec=/bin/true\nInterval=1d\n")
    agent = events.QuietAgent(sandbox)
    try:
        agent.wait_for(r"ready:", timeout=60)
        ctl = [os.path.join(run.BIN, "agentctl"), "--socket", sandbox.socket]
        request = ctl + ["request", "local.feed", "--earliest", "+1h"]
        events.sequential(ctl + ["status"], 10)
        events.sequential(request, 10)
        status, requested = [], []
        for _ in range(ROUNDS):
            status.append(events.sequential(ctl + ["status"], CALLS))
            requested.append(events.sequential(request, CALLS))
        return statistics.median(status), statistics.median(requested)
    finally:
        agent.stop()
        sandbox.cleanup()


def main():
    for bin_dir in sys.argv[1:] or [run.BIN]:
        run.BIN = bin_dir
        raw, boxed = bench_sandbox()
        status, requested = bench_request()
        print("%s: launches/s raw %.0f, sandboxed %.0f, ratio %.2f× (target ≥ 0.5×); "
              "request ×%d %.3f s, status ×%d %.3f s, ratio %.2f× (target ≤ 1.2×)"
              % (bin_dir, raw, boxed, boxed / raw, CALLS, requested, CALLS, status, requested / status), flush=True)


if __name__ == "__main__":
    main()
