#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A/B of two agentd builds on one submission (issue 32): both agents run side by side, each on
a sandbox of its own with a continued job whose plugin is /bin/true, and this client submits to
them in turn (A B, then B A, ...), each submission on a fresh subscription, to both its durable
answer and its run's `run-ended`. The host's drift then reaches both alike, and the paired
difference shows what a change did, where two separate runs differ by more than it (the host's
noise between runs of `bench/events.py` is ±0.2 ms a submission).

With --agentctl, the target's own measure instead: A's agentctl (the same binary for both, since
two copies of one binary can differ by 0.2 ms a call) runs `status` and `submit --wait` against
each agent, the four calls taking turns (`events.interleaved`), ROUNDS rounds of PAIRS calls each;
printed per round, `submit --wait` − `status` for each agent and B's minus A's. The agent
started second came out 0.03–0.06 ms worse on identical builds: run both orders.

  bench/submit_ab.py [--agentctl] DIR_A DIR_B [PAIRS [ROUNDS]]
      (each DIR holds an agentd; default 600 pairs, or 400 calls and 3 rounds with --agentctl)
"""
import os, statistics, subprocess, sys, threading

import events
import run


class Agent(run.Agent):
    def __init__(self, binary, sandbox):
        self.lines = []
        self.cond = threading.Condition()
        self.proc = subprocess.Popen(
            [binary, "--config-dir", sandbox.etc, "--state-dir", os.path.join(sandbox.root, "state"),
             "--socket", sandbox.socket], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
        threading.Thread(target=self._read, daemon=True).start()


def start(directory):
    sandbox = run.Sandbox(0)
    events.continued_job(sandbox, "trivial", "/bin/true")
    agent = Agent(os.path.join(directory, "agentd"), sandbox)
    agent.wait_for(r"ready:", timeout=60)
    return sandbox, agent


def submission(path):
    """Seconds from the submission's write to its answer and to its run's end."""
    call = events.submit_and_wait(path)
    return {"answer": call.answer, "ended": call.ended, "both": max(call.answer, call.ended)}


def by_submission(a, b, pairs):
    for sandbox in (a, b):
        for _ in range(30):
            submission(sandbox.socket)
    results = []
    for i in range(pairs):
        if i % 2:
            rb, ra = submission(b.socket), submission(a.socket)
        else:
            ra, rb = submission(a.socket), submission(b.socket)
        results.append((ra, rb))
    for key in ("answer", "ended", "both"):
        ms_a = statistics.median(ra[key] for ra, _ in results) * 1e3
        ms_b = statistics.median(rb[key] for _, rb in results) * 1e3
        paired = statistics.median(rb[key] - ra[key] for ra, rb in results) * 1e3
        print("%-6s A %.3f ms  B %.3f ms  B - A paired median %+.3f ms" % (key, ms_a, ms_b, paired))


def by_agentctl(a, b, ctl, calls, rounds):
    argvs = []
    for sandbox in (a, b):
        argvs += [[ctl, "--socket", sandbox.socket, "status"],
                  [ctl, "--socket", sandbox.socket, "submit", "local.trivial", "--wait"]]
    events.interleaved(argvs, 20)
    for _ in range(rounds):
        t = [seconds / calls * 1e3 for seconds in events.interleaved(argvs, calls)]
        print("A status %.3f ms, submit --wait %.3f ms (%.3f×) | B status %.3f ms, submit --wait %.3f ms (%.3f×) | "
              "B − A, submit --wait − status: %+.3f ms" % (t[0], t[1], t[1] / t[0], t[2], t[3], t[3] / t[2],
                                                          (t[3] - t[2]) - (t[1] - t[0])), flush=True)


def main():
    args = sys.argv[1:]
    agentctl = "--agentctl" in args
    args = [arg for arg in args if arg != "--agentctl"]
    if len(args) < 2:
        sys.exit(__doc__)
    started = []
    try:
        for directory in args[:2]:
            started.append(start(directory))
        (a, _), (b, _) = started
        if agentctl:
            by_agentctl(a, b, os.path.join(args[0], "agentctl"), int(args[2]) if len(args) > 2 else 400,
                        int(args[3]) if len(args) > 3 else 3)
        else:
            by_submission(a, b, int(args[2]) if len(args) > 2 else 600)
    finally:
        for sandbox, agent in started:
            agent.stop()
            sandbox.cleanup()


if __name__ == "__main__":
    main()
