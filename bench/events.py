# SPDX-License-Identifier: Apache-2.0
"""Event stream benchmarks (issue 14), run by bench/run.py (`--only events` runs just these).

  submit-wait  200 sequential `agentctl submit --wait` of a continued job whose plugin is
               /bin/true, beside 200 sequential `agentctl status` against the same agent and 200
               `agentctl --version` (agentctl's start alone), in the same run (three rounds,
               alternating; the median round of each).
  latency      a plugin writes `PROGRESS=N%` (CLOCK_MONOTONIC just before the write) → each of 10
               subscribers on the control socket has read the run-progress event (CLOCK_MONOTONIC
               after the read), 2 runs × 100 steps × 10 subscribers; beside the same plugin's lines
               read straight from a pipe by the same reader.
"""
import json, os, selectors, socket, statistics, subprocess, sys, threading, time

import run

ROUNDS = 3
CALLS = 200
SUBSCRIBERS = 10

PLUGIN = """#!/usr/bin/python3
import os, sys, time
out = open(sys.argv[1], "w")
for i in range(1, 101):
    t = time.monotonic_ns()
    os.write(1, b"PROGRESS=%d%%\\n" % i)
    out.write("%d %d\\n" % (i, t))
    time.sleep(0.005)
out.close()
"""


class QuietAgent(run.Agent):
    """agentd as shipped: without --bench-probes (that option logs every scheduler decision)."""

    def __init__(self, sandbox):
        self.lines = []
        self.cond = threading.Condition()
        self.proc = subprocess.Popen(
            [os.path.join(run.BIN, "agentd"), "--config-dir", sandbox.etc, "--state-dir",
             os.path.join(sandbox.root, "state"), "--socket", sandbox.socket],
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
        threading.Thread(target=self._read, daemon=True).start()


def continued_job(sandbox, name, exec_line):
    path = os.path.join(sandbox.jobs, name + ".job")
    with open(path, "w") as f:
        f.write("[Job]\nIdentifier=local.%s\nKind=continued\nExec=%s\n" % (name, exec_line))
    os.chmod(path, 0o644)


def sequential(argv, calls):
    """Seconds for `calls` runs of argv one after the other (posix_spawn + waitpid: the least
    overhead Python has for starting a process), each required to exit 0."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
    try:
        t0 = time.monotonic()
        for _ in range(calls):
            pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
            _, status = os.waitpid(pid, 0)
            if status != 0:
                raise RuntimeError("%s exited with status %d" % (" ".join(argv), status))
        return time.monotonic() - t0
    finally:
        os.close(devnull)


def bench_submit_wait():
    sandbox = run.Sandbox(0)
    continued_job(sandbox, "trivial", "/bin/true")
    agent = QuietAgent(sandbox)
    try:
        agent.wait_for(r"ready:", timeout=60)
        ctl = [os.path.join(run.BIN, "agentctl"), "--socket", sandbox.socket]
        sequential(ctl + ["status"], 10)
        sequential(ctl + ["submit", "local.trivial", "--wait"], 10)
        spawner = run.compile_c("spawn_baseline")
        status, submit, version, spawn = [], [], [], []
        for _ in range(ROUNDS):
            status.append(sequential(ctl + ["status"], CALLS))
            submit.append(sequential(ctl + ["submit", "local.trivial", "--wait"], CALLS))
            version.append(sequential(ctl[:1] + ["--version"], CALLS))
            out = subprocess.run([spawner, str(CALLS)], capture_output=True, check=True).stdout.split()
            spawn.append(float(out[0]))
        return (statistics.median(status), statistics.median(submit), statistics.median(version),
                statistics.median(spawn))
    finally:
        agent.stop()
        sandbox.cleanup()


def subscribe(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(b'{"command":"subscribe","filter":{"kinds":["run-progress","run-ended"]}}\n')
    data = b""
    while b"\n" not in data:
        data += s.recv(4096)
    line, rest = data.split(b"\n", 1)
    assert json.loads(line)["ok"] is True, line
    return s, rest


END = "end"


def read_steps(sources, decode):
    """Reads lines from every source until each has ended (EOF, or a line `decode` says is the
    END); returns {(source index, step): CLOCK_MONOTONIC ns of the read that brought it}."""
    selector = selectors.DefaultSelector()
    buffers = {}
    for index, (readable, pending) in enumerate(sources):
        selector.register(readable, selectors.EVENT_READ, index)
        buffers[index] = pending
    arrived = {}
    done = set()
    deadline = time.monotonic() + 60
    while len(done) < len(sources):
        if time.monotonic() > deadline:
            raise TimeoutError("steps missing: %d of %d sources done" % (len(done), len(sources)))
        for key, _ in selector.select(timeout=1):
            chunk = os.read(key.fileobj.fileno(), 65536)
            now = time.monotonic_ns()
            index = key.data
            if not chunk:
                selector.unregister(key.fileobj)
                done.add(index)
                continue
            buffers[index] += chunk
            *lines, buffers[index] = buffers[index].split(b"\n")
            for line in lines:
                step = decode(line)
                if step == END:
                    done.add(index)
                elif step is not None:
                    arrived[(index, step)] = now
    return arrived


def progress_step(line):
    event = json.loads(line)
    if event.get("type") == "run-ended":
        return END  # after the plugin exited: its timestamps are all written
    return round(event["progress"] * 100) if event.get("type") == "run-progress" else None


def written(path):
    with open(path) as f:
        return {int(a): int(b) for a, b in (line.split() for line in f)}


def bench_latency(runs=2):
    sandbox = run.Sandbox(0)
    plugin = os.path.join(sandbox.root, "progress.py")
    with open(plugin, "w") as f:
        f.write(PLUGIN)
    os.chmod(plugin, 0o755)
    continued_job(sandbox, "steps", plugin)
    # Plugins run as nobody when the agent is root: the timestamps go where nobody may write.
    outputs = os.path.join(sandbox.root, "out")
    os.makedirs(outputs)
    os.chmod(outputs, 0o1777)
    agent = QuietAgent(sandbox)
    samples, base = [], []
    try:
        agent.wait_for(r"ready:", timeout=60)
        ctl = [os.path.join(run.BIN, "agentctl"), "--socket", sandbox.socket]
        for n in range(runs):
            subscribers = [subscribe(sandbox.socket) for _ in range(SUBSCRIBERS)]
            out = os.path.join(outputs, "written.%d" % n)
            reader = {}
            thread = threading.Thread(target=lambda: reader.update(read_steps(subscribers, progress_step)))
            thread.start()
            subprocess.run(ctl + ["submit", "local.steps.r%d" % n, "--", out], check=True, stdout=subprocess.DEVNULL)
            thread.join()
            sent = written(out)
            samples += [(t - sent[step]) / 1e6 for (_, step), t in reader.items()]
            for s, _ in subscribers:
                s.close()
            # Baseline: the same plugin's lines read straight from its stdout by the same reader.
            out = os.path.join(outputs, "direct.%d" % n)
            direct = subprocess.Popen([plugin, out], stdout=subprocess.PIPE)
            got = read_steps([(direct.stdout, b"")],
                             lambda line: int(line[len(b"PROGRESS="):-1]) if line.startswith(b"PROGRESS=") else None)
            direct.wait()
            sent = written(out)
            base += [(t - sent[step]) / 1e6 for (_, step), t in got.items()]
    finally:
        agent.stop()
        sandbox.cleanup()
    return samples, base


def verdict(met):
    return "met" if met else "**not met**"


def markdown(status, submit, version, spawn, samples, base):
    status_rate, submit_rate = CALLS / status, CALLS / submit
    return "\n".join([
        "",
        "## Event stream (issue 14; targets: 200 sequential `submit --wait` ≤ 1.5× 200 sequential `status`, and",
        "## ≥ 100/s; `PROGRESS=` → subscriber p99 < 5 ms with 10 subscribers)",
        "",
        "200 sequential `agentctl submit --wait` of a continued job whose plugin is `/bin/true` (each a new",
        "agentctl process: subscribe, submit, follow the run to its end) beside 200 sequential `agentctl status`",
        "against the same agent in the same run; median of %d alternating rounds. `bench/run.py --only events`" % ROUNDS,
        "runs this section alone.",
        "",
        "| `submit --wait` × 200 | `status` × 200 | ratio | `submit --wait` rate | `agentctl --version` × 200 |",
        "| ---: | ---: | ---: | ---: | ---: |",
        "| %.3f s | %.3f s | %.2f× | %.0f/s | %.3f s |" % (submit, status, submit / status, submit_rate, version),
        "",
        "`agentctl --version` (no socket at all) is the cost of starting agentctl: of each `submit --wait`,",
        "%.1f ms is agentctl starting and %.1f ms the rest (connect, subscribe, submit, the agent spawning and" % (
            version / CALLS * 1e3, (submit - version) / CALLS * 1e3),
        "reaping `/bin/true` and recording its run, the events back); of each `status`, %.1f ms the rest." % (
            (status - version) / CALLS * 1e3),
        "",
        "Issue 32 asks for `submit --wait` ≤ 1.2× `status`. A floor under it: `submit --wait` costs at least a `status`",
        "besides its run (it starts agentctl, connects and makes a round trip as `status` does, then a second one whose",
        "answer waits for the submission's sync), and the run at least one posix_spawn + waitpid of `/bin/true` by a C",
        "loop (`bench/spawn_baseline.c`, %d runs in the same rounds, %.2f ms each): %.3f s for %d, %.2f× `status` (%s)." % (
            CALLS, spawn / CALLS * 1e3, status + spawn, CALLS, (status + spawn) / status,
            "the target is below the floor on this machine" if (status + spawn) / status > 1.2 else "the target is above it"),
        "",
        "Event latency: the plugin takes CLOCK_MONOTONIC and writes `PROGRESS=N%%` → each of %d subscribers on the" % SUBSCRIBERS,
        "control socket has read the `run-progress` event (one Python reader for all, CLOCK_MONOTONIC after",
        "each read); 2 runs × 100 steps × %d subscribers. Baseline: the same plugin's lines read by the same" % SUBSCRIBERS,
        "reader straight from its stdout pipe.",
        "",
        "| samples | agentd p50 | agentd p99 | pipe p50 | pipe p99 | p99 ratio |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
        "| %d | %.3f ms | %.3f ms | %.3f ms | %.3f ms | %.1f× |" % (
            len(samples), statistics.median(samples), run.percentile(samples, 0.99), statistics.median(base),
            run.percentile(base, 0.99), run.percentile(samples, 0.99) / max(run.percentile(base, 0.99), 1e-6)),
        "",
        "Targets in this run: ratio ≤ 1.5× %s (%.2f×); ≥ 100/s %s (%.0f/s; agentctl's own start allows at most" % (
            verdict(submit / status <= 1.5), submit / status, verdict(submit_rate >= 100), submit_rate),
        "%.0f/s here); event latency p99 < 5 ms %s (%.3f ms)." % (
            CALLS / version, verdict(run.percentile(samples, 0.99) < 5), run.percentile(samples, 0.99)),
        "",
        "Load average when the section finished: %.1f on %d cores (other work on the machine delays every" % (
            os.getloadavg()[0], os.cpu_count()),
        "process alike; the ratios are taken in the same run).",
        "",
    ])


def main():
    status, submit, version, spawn = bench_submit_wait()
    print("submit --wait ×%d: %.3f s (%.0f/s); status ×%d: %.3f s (%.0f/s); ratio %.2f; agentctl --version ×%d: %.3f s"
          % (CALLS, submit, CALLS / submit, CALLS, status, CALLS / status, submit / status, CALLS, version), flush=True)
    samples, base = bench_latency()
    print("PROGRESS= → %d subscribers: p50 %.3f ms p99 %.3f ms; pipe p50 %.3f ms p99 %.3f ms"
          % (SUBSCRIBERS, statistics.median(samples), run.percentile(samples, 0.99), statistics.median(base),
             run.percentile(base, 0.99)), flush=True)
    return markdown(status, submit, version, spawn, samples, base)


if __name__ == "__main__":
    print(main())
