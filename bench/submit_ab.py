#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A/B of two agentd builds on one submission (issue 32): both agents run side by side, each on
a sandbox of its own with a continued job whose plugin is /bin/true, and this client submits to
them in turn (A B, then B A, ...), each submission on a fresh subscription, to both its durable
answer and its run's `run-ended`. The host's drift then reaches both alike, and the paired
difference shows what a change did, where two separate runs differ by more than it (the host's
noise between runs of `bench/events.py` is ±0.2 ms a submission).

  bench/submit_ab.py DIR_A DIR_B [PAIRS]   (each DIR holds an agentd; default 600 pairs)
"""
import os, statistics, subprocess, sys, threading, time

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
    c = run.AgentConnection(path)
    try:
        c.send(events.SUBSCRIBE_TRIVIAL)
        c.next()
        t0 = time.monotonic()
        c.send(events.SUBMIT_TRIVIAL)
        answer = ended = None
        while answer is None or ended is None:
            event = c.next()
            if "ok" in event:
                if event["ok"] is not True:
                    raise RuntimeError("submission refused: %s" % event)
                answer = time.monotonic() - t0
            elif event.get("type") == "run-ended":
                if event.get("stopReason") != "success":
                    raise RuntimeError("run did not succeed: %s" % event)
                ended = time.monotonic() - t0
        return {"answer": answer, "ended": ended, "both": max(answer, ended)}
    finally:
        c.close()


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    pairs = int(sys.argv[3]) if len(sys.argv) > 3 else 600
    started = []
    try:
        for directory in sys.argv[1:3]:
            started.append(start(directory))
        (a, _), (b, _) = started
        for sandbox, _ in started:
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
    finally:
        for sandbox, agent in started:
            agent.stop()
            sandbox.cleanup()


if __name__ == "__main__":
    main()
