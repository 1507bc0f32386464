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
  app       an app's `submit` through the BackgroundTasks library (bench/AppSubmit) ÷ `agentctl
            request`, the command for the same request (target ≤ 1.2×): 200 sequential app
            processes each submitting once, beside 200 sequential `agentctl request`; and 200
            submits in one app process, each a second later than the last (so each is written).
"""
import os, statistics, subprocess, sys, tempfile, time

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


def bench_app_submit():
    sandbox = run.Sandbox(0)
    run.write_raw_job(sandbox, "feed", "[Job]\nIdentifier=local.feed\nKind=refresh\nExec=/bin/true\nInterval=1d\n")
    agent = events.QuietAgent(sandbox)
    app = os.path.join(run.BIN, "app-submit-bench")
    saved = os.environ.get("AGENTD_SOCKET")
    os.environ["AGENTD_SOCKET"] = sandbox.socket
    try:
        agent.wait_for(r"ready:", timeout=60)
        request = [os.path.join(run.BIN, "agentctl"), "--socket", sandbox.socket, "request", "local.feed", "--earliest", "+1h"]
        events.sequential(request, 10)
        events.sequential([app, "local.feed"], 10)
        apps, requests, inside, starts = [], [], [], []
        for _ in range(ROUNDS):
            starts.append(events.sequential([app, "local.feed", "0"], CALLS))
            apps.append(events.sequential([app, "local.feed"], CALLS))
            requests.append(events.sequential(request, CALLS))
            out = subprocess.run([app, "local.feed", str(CALLS)], capture_output=True, text=True, check=True)
            inside.append(float(out.stdout))
        return (statistics.median(apps), statistics.median(requests), statistics.median(inside),
                statistics.median(starts))
    finally:
        if saved is None:
            os.environ.pop("AGENTD_SOCKET", None)
        else:
            os.environ["AGENTD_SOCKET"] = saved
        agent.stop()
        sandbox.cleanup()


def section():
    """`make bench`'s section for these figures (run.py calls it; `--only extra` alone)."""
    raw, boxed = bench_sandbox()
    status, requested = bench_request()
    apps, requests, inside, starts = bench_app_submit()
    verdict = lambda ok: "met" if ok else "**not met**"
    per_call = requests / CALLS * 1e3
    lines = [
        "## Sandbox, run-time requests and an app's submit (issue 32; targets: sandboxed launches ≥ 0.5× unsandboxed,",
        "## a `request` ≤ 1.2× a `status`, an app's `submit` ≤ 1.2× `agentctl request`)",
        "",
        "`bench/issue32_extra.py`, median of %d alternating rounds each. Launches: %d `simulate launch` of a job with" % (ROUNDS, LAUNCHES),
        "`ProtectSystem=strict` and `PrivateTmp=yes` in one burst, until the last run is recorded ended, beside the same",
        "job without them. Requests: %d sequential `agentctl request local.feed --earliest +1h` (durable before the" % CALLS,
        "answer) beside %d sequential `agentctl status`. An app: `bench/AppSubmit`, which submits a" % CALLS,
        "`BGAppRefreshTaskRequest` an hour ahead through the BackgroundTasks library, the command line's `agentctl request`",
        "for the same request beside it; once a process per submit (as `agentctl` is), and %d submits in one app" % CALLS,
        "process, each a second later than the last so that each is written (an app submits from inside itself).",
        "",
        "| figure | agentd | baseline | ratio | target |",
        "| --- | ---: | ---: | ---: | --- |",
        "| sandboxed ÷ unsandboxed launches | %.0f/s | %.0f/s | %.2f× | %s |" % (boxed, raw, boxed / raw, verdict(boxed / raw >= 0.5)),
        "| `request` ÷ `status` | %.3f s | %.3f s | %.2f× | %s |" % (requested, status, requested / status, verdict(requested / status <= 1.2)),
        "| an app's `submit` in the app ÷ `agentctl request` | %.3f ms a submit | %.3f ms | %.2f× | %s |" % (
            inside / CALLS * 1e3, per_call, inside / CALLS * 1e3 / per_call, verdict(inside / CALLS * 1e3 / per_call <= 1.2)),
        "| an app started to submit once ÷ `agentctl request` | %.3f s | %.3f s | %.2f× | |" % (apps, requests, apps / requests),
        "",
        "The app started once per submit pays its own start: %.3f s of the %.3f s is the same app submitting nothing" % (starts, apps),
        "(the Swift runtime and Foundation, linked statically: an %d MB executable)." % round(os.path.getsize(os.path.join(run.BIN, "app-submit-bench")) / 1e6),
        "",
    ]
    return "\n".join(lines)


def main():
    for bin_dir in sys.argv[1:] or [run.BIN]:
        run.BIN = bin_dir
        raw, boxed = bench_sandbox()
        status, requested = bench_request()
        apps, requests, inside, starts = bench_app_submit()
        print("%s: app submit ×%d %.3f s (a process each; the app's start alone %.3f s), agentctl request ×%d "
              "%.3f s, ratio %.2f×; in one app process %.3f ms a submit" % (
                  bin_dir, CALLS, apps, starts, CALLS, requests, apps / requests, inside / CALLS * 1e3), flush=True)
        print("%s: launches/s raw %.0f, sandboxed %.0f, ratio %.2f× (target ≥ 0.5×); "
              "request ×%d %.3f s, status ×%d %.3f s, ratio %.2f× (target ≤ 1.2×)"
              % (bin_dir, raw, boxed, boxed / raw, CALLS, requested, CALLS, status, requested / status), flush=True)


if __name__ == "__main__":
    main()
