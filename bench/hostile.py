#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Issue 28's load figures, measured against a real agentd (run as root; prints, writes nothing):

  pipeline  200 root connections, each sending 150 `history` requests at once and never reading,
            against 5,000 runs of history: when the agent hangs up on each (POLLRDHUP), the agent's
            peak RSS (VmRSS sampled every 50 ms) and root `status` latency on a new connection
            every 100 ms meanwhile (max, p99).
  filter    a 40,000-line run (a plugin printing STATUS=n and PROGRESS=n/40000 on alternate lines)
            while a subscriber holds a 10,000-pattern filter and reads its events, beside the same
            run with no subscriber and with a one-pattern subscriber: run duration (started →
            ended, from history), the agent's CPU time, and root `status` latency meanwhile.

`AGENTD_BIN_DIR` names the build to measure (default: bench/run.py's release build).
"""
import json, os, select, socket, sqlite3, statistics, subprocess, sys, threading, time

import run

CONNECTIONS = 200
REQUESTS = 150
RUNS = 5000
PATTERNS = 10000
LINES = 40000


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Sampler:
    """Root `status` round trips and the agent's RSS, on threads, until stopped."""

    def __init__(self, agent, socket_path, every=0.1):
        self.every = every
        self.pid = agent.proc.pid
        self.path = socket_path
        self.latencies, self.rss, self.series = [], [], []
        self.began = time.monotonic()
        self.failures = 0
        self.done = threading.Event()
        self.threads = [threading.Thread(target=self._status, daemon=True),
                        threading.Thread(target=self._memory, daemon=True)]
        for thread in self.threads:
            thread.start()

    def _status(self):
        while not self.done.is_set():
            started = time.monotonic()
            try:
                ok = run.status_request(self.path, timeout=10).get("ok") is True
            except (OSError, ValueError):
                ok = False
            self.latencies.append(time.monotonic() - started)
            self.series.append((round(started - self.began, 1), round(self.latencies[-1] * 1e3), ok))
            if not ok:
                self.failures += 1
            self.done.wait(self.every)

    def _memory(self):
        while not self.done.is_set():
            self.rss.append(rss_kib(self.pid))
            self.done.wait(0.05)

    def stop(self):
        self.done.set()
        for thread in self.threads:
            thread.join()


def fill_history(sandbox):
    """RUNS finished runs with 2 KB log tails, written before the agent that serves them starts."""
    agent = run.Agent(sandbox)
    agent.wait_for("ready:")
    agent.stop()
    db = sqlite3.connect(os.path.join(sandbox.root, "state", "state.db"))
    tail = "\n".join("line %d %s" % (i, "x" * 92) for i in range(20))
    start = int(time.time() * 1000) - (RUNS + 1) * 60000
    db.executemany(
        "INSERT INTO runs (run_id, identifier, kind, reason, started_at, ended_at, stop_reason, exit_status, title, log_tail)"
        " VALUES (?, 'local.big', 'processing', 'interval', ?, ?, 'success', 0, ?, ?)",
        [("r%06d" % n, start + n * 60000, start + n * 60000 + 5000, "Run %d" % n, tail) for n in range(1, RUNS + 1)])
    db.commit()
    db.close()


def bench_pipeline():
    sandbox = run.Sandbox(0)
    try:
        with open(os.path.join(sandbox.jobs, "big.job"), "w") as f:
            f.write("[Job]\nIdentifier=local.big\nKind=processing\nExec=%s\n" % sandbox.plugin)
        fill_history(sandbox)
        agent = run.Agent(sandbox)
        agent.wait_for("ready:")
        baseline = rss_kib(agent.proc.pid)
        sampler = Sampler(agent, sandbox.socket)
        request = b'{"command":"history"}\n' * REQUESTS
        poller = select.poll()
        sockets, opened = {}, time.monotonic()
        for _ in range(CONNECTIONS):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(sandbox.socket)
            s.setblocking(False)
            try:
                s.send(request)
            except BlockingIOError:
                pass
            sockets[s.fileno()] = s
            poller.register(s, select.POLLRDHUP | select.POLLHUP)
        dropped = {}
        deadline = opened + 120
        while len(dropped) < CONNECTIONS and time.monotonic() < deadline:
            for fd, events in poller.poll(50):
                if fd not in dropped:
                    dropped[fd] = time.monotonic() - opened
                    poller.unregister(fd)
        sampler.stop()
        for s in sockets.values():
            s.close()
        agent.stop()
        times = sorted(dropped.values())
        latencies = sampler.latencies
        print("pipeline: %d root connections × %d history requests, never read; %d of %d dropped, "
              "first after %.1f s, last after %.1f s; RSS %d KiB before → peak %d KiB (+%.1f MiB); "
              "root status: %d probes, max %.0f ms, p99 %.0f ms, median %.1f ms, %d failed"
              % (CONNECTIONS, REQUESTS, len(times), CONNECTIONS, times[0] if times else -1,
                 times[-1] if times else -1, baseline, max(sampler.rss), (max(sampler.rss) - baseline) / 1024,
                 len(latencies), max(latencies) * 1e3, run.percentile(latencies, 0.99) * 1e3,
                 statistics.median(latencies) * 1e3, sampler.failures), flush=True)
        print("pipeline: status probes (s after start, ms, answered): %s" % sampler.series, flush=True)
    finally:
        sandbox.cleanup()


# One write per line, paced (0.1 ms apart), so that the agent's reads — which merge what one read
# holds into one event — see the lines one at a time: as near to one event per line as it gets.
PLUGIN = """#!/usr/bin/python3
import os, time
for i in range(1, %d + 1):
    os.write(1, (("STATUS=step %%d\\n" %% i) if i %% 2 else ("PROGRESS=%%d/%d\\n" %% i)).encode())
    time.sleep(0.0001)
""" % (LINES, LINES)


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def subscribe(path, patterns):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(json.dumps({"command": "subscribe", "filter": {"identifiers": patterns}}, separators=(",", ":")).encode() + b"\n")
    reader = s.makefile("rb")
    answer = json.loads(reader.readline())
    assert answer.get("ok") is True, answer
    counted = {"events": 0}

    def drain():
        for _ in reader:
            counted["events"] += 1
    threading.Thread(target=drain, daemon=True).start()
    return s, counted


def one_flood(agent, sandbox, patterns):
    subscription = subscribe(sandbox.socket, patterns) if patterns else None
    sampler = Sampler(agent, sandbox.socket, every=0.005)
    cpu = cpu_seconds(agent.proc.pid)
    mark = len(agent.lines)
    subprocess.run([os.path.join(run.BIN, "agentctl"), "--socket", sandbox.socket, "simulate", "launch", "local.flood"],
                   check=True, stdout=subprocess.DEVNULL)
    agent.wait_for(r"of local\.flood ended", start=mark, timeout=300)
    sampler.stop()
    cpu = cpu_seconds(agent.proc.pid) - cpu
    history = json.loads(subprocess.run([os.path.join(run.BIN, "agentctl"), "--socket", sandbox.socket, "history",
                                         "local.flood", "--json", "--limit", "1"],
                                        check=True, capture_output=True).stdout)
    took = history[0].get("durationSeconds")
    if took is None:
        took = (run_instant(history[0]["endedAt"]) - run_instant(history[0]["startedAt"]))
    events = subscription[1]["events"] if subscription else 0
    if subscription:
        subscription[0].close()
    return took, sampler.latencies, events, history[0].get("stopReason"), cpu


def run_instant(text):
    from datetime import datetime
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def bench_filter():
    sandbox = run.Sandbox(0)
    try:
        plugin = os.path.join(sandbox.root, "flood")
        with open(plugin, "w") as f:
            f.write(PLUGIN)
        os.chmod(plugin, 0o755)
        with open(os.path.join(sandbox.jobs, "flood.job"), "w") as f:
            f.write("[Job]\nIdentifier=local.flood\nKind=processing\nExec=%s\nUser=root\n" % plugin)
        agent = run.Agent(sandbox)
        agent.wait_for("registered local.flood")
        # A 60 KB filter as issue 28 sent: 9,999 three-letter identifiers and the flooding job's
        # (every event of the run matches, after the others were looked at).
        alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
        patterns = [alphabet[i // 1296] + alphabet[i // 36 % 36] + alphabet[i % 36] for i in range(PATTERNS - 1)]
        patterns.append("local.flood")
        cases = (("no subscriber", None), ("1-pattern subscriber", ["local.flood"]),
                 ("10,000-pattern subscriber", patterns))
        for label, filter_patterns in cases:
            took, latencies, events, stop, cpu = one_flood(agent, sandbox, filter_patterns)
            print("filter: %d-line run with %s: %s in %.2f s, agent CPU %.2f s; %d events read; root status: "
                  "%d probes, max %.0f ms, p99 %.0f ms, median %.1f ms"
                  % (LINES, label, stop, took, cpu, events, len(latencies), max(latencies) * 1e3,
                     run.percentile(latencies, 0.99) * 1e3, statistics.median(latencies) * 1e3), flush=True)
        agent.stop()
    finally:
        sandbox.cleanup()


if __name__ == "__main__":
    which = sys.argv[1:] or ["pipeline", "filter"]
    if "pipeline" in which:
        bench_pipeline()
    if "filter" in which:
        bench_filter()
