# SPDX-License-Identifier: Apache-2.0
"""Event stream benchmarks (issue 14), run by bench/run.py (`--only events` runs just these).

  submit-wait  200 sequential `agentctl submit --wait` of a continued job whose plugin is
               /bin/true, beside 200 sequential `agentctl status` against the same agent and 200
               `agentctl --version` (agentctl's start alone), in the same run (three rounds,
               alternating; the median round), with agentctl's own CPU (wait4) and the agent's
               part alone, measured by this bench's own client on the socket; then the agent's
               own CPU a submission (schedstat).
               Beside them, bench/reference_agent.c: the least any agent can do for both (the run
               spawned at once, the submission synced meanwhile, the status answer a replayed line),
               200 of each command to each agent in the same rounds, taking turns call by call.
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
    """Seconds for `calls` runs of argv one after the other (`sequential_with_cpu`)."""
    return sequential_with_cpu(argv, calls)[0]


def sequential_with_cpu(argv, calls):
    """(seconds, CPU seconds) for `calls` runs of argv one after the other (posix_spawn + wait4:
    the least overhead Python has for starting a process), each required to exit 0. The CPU is
    the processes' own, user and system, as wait4 reports it."""
    with SilentCalls() as call:
        t0 = time.monotonic()
        cpu = sum(call(argv) for _ in range(calls))
        return time.monotonic() - t0, cpu


def interleaved(argvs, calls):
    """Seconds for `calls` runs of each argv, the argvs taking turns call by call (a, b, c, a, b,
    c, ...), so that the host's drift over the round reaches each alike."""
    totals = [0.0] * len(argvs)
    with SilentCalls() as call:
        for _ in range(calls):
            for i, argv in enumerate(argvs):
                t0 = time.monotonic()
                call(argv)
                totals[i] += time.monotonic() - t0
    return totals


class SilentCalls:
    """Runs a command to its exit with its output to /dev/null (posix_spawn + wait4), requires it
    to exit 0 and returns its CPU seconds, user and system."""

    def __enter__(self):
        self.devnull = os.open(os.devnull, os.O_WRONLY)
        self.actions = [(os.POSIX_SPAWN_DUP2, self.devnull, 1), (os.POSIX_SPAWN_DUP2, self.devnull, 2)]
        return self.call

    def __exit__(self, *exc):
        os.close(self.devnull)

    def call(self, argv):
        pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=self.actions)
        _, status, usage = os.wait4(pid, 0)
        if status != 0:
            raise RuntimeError("%s exited with status %d" % (" ".join(argv), status))
        return usage.ru_utime + usage.ru_stime


SUBSCRIBE_TRIVIAL = b'{"command":"subscribe","filter":{"identifiers":["local.trivial"]}}'
SUBMIT_TRIVIAL = b'{"command":"submit","submission":{"arguments":[],"strategy":"queue"},"target":"local.trivial"}'


def direct_calls(path, calls):
    """The agent's part of each command, without agentctl: per call, seconds of a `status` round
    trip (connect to answer), of a subscription (connect to its answer) and of a submission on
    it to its run's `run-ended` (what agentctl sends for `submit --wait`)."""
    status, subscribed, ended = 0.0, 0.0, 0.0
    for _ in range(calls):
        t0 = time.monotonic()
        if run.status_request(path).get("ok") is not True:
            raise RuntimeError("status refused")
        status += time.monotonic() - t0
        call = submit_and_wait(path)
        subscribed, ended = subscribed + call.subscribed, ended + call.ended
    return status / calls, subscribed / calls, ended / calls


class Submission:
    """Seconds of one `submit_and_wait`: from the connect to the subscription's answer, then from
    the submission's write to its answer and to its run's `run-ended`."""

    def __init__(self, subscribed, answer, ended):
        self.subscribed, self.answer, self.ended = subscribed, answer, ended


def submit_and_wait(path):
    """One submission as agentctl's `submit --wait` makes it: a subscription, the submission on
    it, then its answer and its run's `run-ended` (both: the agent's work for it is done)."""
    t0 = time.monotonic()
    c = run.AgentConnection(path)
    try:
        c.send(SUBSCRIBE_TRIVIAL)
        if c.next().get("ok") is not True:
            raise RuntimeError("subscription refused")
        t1 = time.monotonic()
        c.send(SUBMIT_TRIVIAL)
        answer = ended = None
        while answer is None or ended is None:
            event = c.next()
            if "ok" in event:
                if event["ok"] is not True:
                    raise RuntimeError("submission refused: %s" % event)
                answer = time.monotonic() - t1
            elif event.get("type") == "run-ended":
                if event.get("stopReason") not in (None, "success"):
                    raise RuntimeError("run did not succeed: %s" % event)
                ended = time.monotonic() - t1
        return Submission(t1 - t0, answer, ended)
    finally:
        c.close()


def thread_cpu(pid):
    """Nanoseconds each thread of `pid` has spent on a CPU (schedstat), by thread id."""
    times = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                times[int(tid)] = int(f.read().split()[0])
        except (OSError, ValueError):
            pass  # the thread ended meanwhile
    return times


def agent_cpu(pid, path, calls):
    """The agent's CPU a submission (`submit_and_wait`), in seconds: all its threads, and its main
    thread (agentd's loop) alone. Unlike wall time, the host's other work hardly moves it."""
    before = thread_cpu(pid)
    for _ in range(calls):
        submit_and_wait(path)
    after = thread_cpu(pid)
    spent = {tid: ns - before.get(tid, 0) for tid, ns in after.items()}
    return sum(spent.values()) / calls / 1e9, spent.get(pid, 0) / calls / 1e9


class SubmitWaitRound:
    """One round: seconds for CALLS calls of each command and of the C spawn loop; seconds per
    call of agentctl's own CPU and of the agent's part alone (`direct_calls`)."""

    def __init__(self, status, submit, version, spawn, status_cpu, submit_cpu, direct_status,
                 direct_subscribe, direct_end, beside_reference):
        self.status, self.submit, self.version, self.spawn = status, submit, version, spawn
        # agentd's `status` and `submit --wait`, then the reference agent's, taking turns.
        self.paired_status, self.paired_submit, self.reference_status, self.reference_submit = beside_reference
        self.status_cpu, self.submit_cpu = status_cpu, submit_cpu
        self.direct_status, self.direct_subscribe, self.direct_end = direct_status, direct_subscribe, direct_end
        # Each agent's CPU a submission (`agent_cpu`), measured once, for the round shown.
        self.agentd_cpu = self.reference_cpu = None

    def floor(self):
        """Seconds per call of a `submit --wait` whose agent adds nothing around the bare run:
        what a `status` costs besides agentctl's CPU and the agent's answer, plus this agentctl's
        CPU, the subscription, and a C loop's spawn and reap of /bin/true."""
        status_call = self.status / CALLS
        return (status_call - self.status_cpu - self.direct_status + self.submit_cpu
                + self.direct_subscribe + self.spawn / CALLS)


def status_line(path):
    """The agent's raw answer to `status`, newline included."""
    data = run.status_bytes(path)
    if not data.endswith(b"\n"):
        raise RuntimeError("the agent closed the connection before its status answer")
    return data


def start_reference_agent(sandbox):
    """bench/reference_agent.c on a socket of its own, answering `status` with agentd's own line."""
    line = os.path.join(sandbox.root, "status.line")
    with open(line, "wb") as f:
        f.write(status_line(sandbox.socket))
    path = os.path.join(sandbox.root, "reference.sock")
    proc = subprocess.Popen([run.compile_c("reference_agent"), path, line, os.path.join(sandbox.root, "reference.state")],
                            stdout=subprocess.PIPE)
    if proc.stdout.readline().strip() != b"ready":
        proc.kill()
        raise RuntimeError("bench/reference_agent.c did not start")
    return proc, path


def bench_submit_wait():
    sandbox = run.Sandbox(0)
    continued_job(sandbox, "trivial", "/bin/true")
    agent = QuietAgent(sandbox)
    reference = None
    try:
        agent.wait_for(r"ready:", timeout=60)
        ctl = [os.path.join(run.BIN, "agentctl"), "--socket", sandbox.socket]
        reference, reference_path = start_reference_agent(sandbox)
        ref = ctl[:2] + [reference_path]
        sequential(ctl + ["status"], 10)
        sequential(ctl + ["submit", "local.trivial", "--wait"], 10)
        sequential(ref + ["status"], 10)
        sequential(ref + ["submit", "local.trivial", "--wait"], 10)
        spawner = run.compile_c("spawn_baseline")
        direct_calls(sandbox.socket, 10)
        rounds = []
        for _ in range(ROUNDS):
            status, status_cpu = sequential_with_cpu(ctl + ["status"], CALLS)
            submit, submit_cpu = sequential_with_cpu(ctl + ["submit", "local.trivial", "--wait"], CALLS)
            version = sequential(ctl[:1] + ["--version"], CALLS)
            out = subprocess.run([spawner, str(CALLS)], capture_output=True, check=True).stdout.split()
            direct = direct_calls(sandbox.socket, CALLS)
            beside_reference = interleaved([ctl + ["status"], ctl + ["submit", "local.trivial", "--wait"],
                                            ref + ["status"], ref + ["submit", "local.trivial", "--wait"]], CALLS)
            rounds.append(SubmitWaitRound(status, submit, version, float(out[0]), status_cpu / CALLS,
                                          submit_cpu / CALLS, *direct, beside_reference))
        # The median round by the ratio, so that every figure shown comes from one round.
        chosen = sorted(rounds, key=lambda r: r.submit / r.status)[len(rounds) // 2]
        chosen.agentd_cpu = agent_cpu(agent.proc.pid, sandbox.socket, CALLS)
        chosen.reference_cpu = agent_cpu(reference.pid, reference_path, CALLS)
        return chosen
    finally:
        if reference:
            reference.kill()
            reference.wait()
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


def markdown(r, samples, base):
    status, submit, version = r.status, r.submit, r.version
    status_rate, submit_rate = CALLS / status, CALLS / submit
    ms = lambda seconds: seconds * 1e3
    floor = r.floor() * CALLS
    return "\n".join([
        "",
        "## Event stream (issue 14; targets: 200 sequential `submit --wait` ≤ 1.5× 200 sequential `status`, and",
        "## ≥ 100/s; `PROGRESS=` → subscriber p99 < 5 ms with 10 subscribers)",
        "",
        "200 sequential `agentctl submit --wait` of a continued job whose plugin is `/bin/true` (each a new",
        "agentctl process: subscribe, submit, follow the run to its end) beside 200 sequential `agentctl status`",
        "against the same agent in the same run; the median of %d alternating rounds (by the ratio; every" % ROUNDS,
        "figure of this section is from that round). `bench/run.py --only events` runs this section alone.",
        "",
        "| `submit --wait` × 200 | `status` × 200 | ratio | `submit --wait` rate | `agentctl --version` × 200 |",
        "| ---: | ---: | ---: | ---: | ---: |",
        "| %.3f s | %.3f s | %.2f× | %.0f/s | %.3f s |" % (submit, status, submit / status, submit_rate, version),
        "",
        "Where a call's time goes, per call: agentctl's own CPU (user and system, from `wait4`), and the agent's",
        "part alone, measured by this bench's own client on the socket in the same round (a `status` from",
        "connect to answer; a subscription from connect to its answer, then the submission on it to its run's",
        "`run-ended`, the requests agentctl sends). Beside them, a C loop's posix_spawn + waitpid of `/bin/true`",
        "(`bench/spawn_baseline.c`, %d in the same round)." % CALLS,
        "",
        "| per call | `status` | `submit --wait` |",
        "| --- | ---: | ---: |",
        "| the whole call | %.2f ms | %.2f ms |" % (ms(status / CALLS), ms(submit / CALLS)),
        "| agentctl's own CPU | %.2f ms | %.2f ms |" % (ms(r.status_cpu), ms(r.submit_cpu)),
        "| the agent alone: its answer / subscription + submission to `run-ended` | %.2f ms | %.2f + %.2f ms |" % (
            ms(r.direct_status), ms(r.direct_subscribe), ms(r.direct_end)),
        "| a C posix_spawn + waitpid of `/bin/true` | | %.2f ms |" % ms(r.spawn / CALLS),
        "",
        "Issue 32 asks for `submit --wait` ≤ 1.2× `status`. A floor under it: a `submit --wait` whose agent",
        "added nothing around the bare run — what a `status` costs besides agentctl's CPU and the agent's answer",
        "(starting and ending the process), plus this agentctl's CPU, the subscription and the C loop's spawn",
        "and reap — %.2f ms a call, %.2f× `status` (%s). What the agent adds around the run is the rest of its" % (
            ms(r.floor()), floor / status,
            "the target is below the floor on this machine" if floor / status > 1.2 else "the target is above it"),
        "part: %.2f ms (its launch with cgroups and pipes, the submission's sync, reaping, records, events)." % (
            ms(r.direct_end - r.spawn / CALLS)),
        "",
        "The same measured rather than reckoned: the least any agent can do for these two commands,",
        "`bench/reference_agent.c` (one C epoll loop: the run spawned the moment the submission is read, in a",
        "session of its own, reaped through a pidfd; the submission written and fdatasync'd by a second thread",
        "meanwhile, since a request is acknowledged only once durable; `status` answered with a line of agentd's",
        "replayed). The same agentctl against both, %d calls of each command to each agent in the same round," % CALLS,
        "taking turns call by call (agentd's `status`, its `submit --wait`, the reference's, the reference's), so",
        "that the host's drift over the round reaches all four alike:",
        "",
        "| against | `status` a call | `submit --wait` a call | ratio |",
        "| --- | ---: | ---: | ---: |",
        "| agentd | %.2f ms | %.2f ms | %.2f× |" % (
            ms(r.paired_status / CALLS), ms(r.paired_submit / CALLS), r.paired_submit / r.paired_status),
        "| the reference agent | %.2f ms | %.2f ms | %.2f× |" % (
            ms(r.reference_status / CALLS), ms(r.reference_submit / CALLS), r.reference_submit / r.reference_status),
        "",
        "The reference's `submit --wait` ÷ agentd's `status`: %.2f× — where agentd would stand if its submission" % (
            r.reference_submit / r.paired_status),
        "path cost nothing beyond that least; agentd's `submit --wait` is %.2f ms a call above the reference's." % (
            ms((r.paired_submit - r.reference_submit) / CALLS)),
        "",
        "On 2 cores, what the agent spends on a CPU delays the run and the answer it shares them with. Each agent's",
        "CPU a submission (all its threads, from `/proc/PID/task/*/schedstat`, over %d submissions made as" % CALLS,
        "agentctl makes them, after the rounds):",
        "",
        "| agent | CPU a submission | of which its main thread |",
        "| --- | ---: | ---: |",
        "| agentd | %.3f ms | %.3f ms (the loop) |" % (ms(r.agentd_cpu[0]), ms(r.agentd_cpu[1])),
        "| the reference agent | %.3f ms | %.3f ms |" % (ms(r.reference_cpu[0]), ms(r.reference_cpu[1])),
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
    r = bench_submit_wait()
    print("submit --wait ×%d: %.3f s (%.0f/s); status ×%d: %.3f s (%.0f/s); ratio %.2f; agentctl --version ×%d: %.3f s; "
          "agentctl CPU a call: status %.2f ms, submit --wait %.2f ms; agent alone: status %.2f ms, subscribe %.2f ms, "
          "submission to run-ended %.2f ms; C spawn %.2f ms; floor %.2f×; taking turns with the reference agent: "
          "agentd status %.2f ms, submit --wait %.2f ms, ratio %.2f; reference status %.2f ms, submit --wait %.2f ms, "
          "ratio %.2f, its submit --wait ÷ agentd's status %.2f; CPU a submission: agentd %.3f ms (loop %.3f ms), "
          "reference %.3f ms"
          % (CALLS, r.submit, CALLS / r.submit, CALLS, r.status, CALLS / r.status, r.submit / r.status, CALLS,
             r.version, r.status_cpu * 1e3, r.submit_cpu * 1e3, r.direct_status * 1e3, r.direct_subscribe * 1e3,
             r.direct_end * 1e3, r.spawn / CALLS * 1e3, r.floor() * CALLS / r.status,
             r.paired_status / CALLS * 1e3, r.paired_submit / CALLS * 1e3, r.paired_submit / r.paired_status,
             r.reference_status / CALLS * 1e3, r.reference_submit / CALLS * 1e3,
             r.reference_submit / r.reference_status, r.reference_submit / r.paired_status,
             r.agentd_cpu[0] * 1e3, r.agentd_cpu[1] * 1e3, r.reference_cpu[0] * 1e3), flush=True)
    samples, base = bench_latency()
    print("PROGRESS= → %d subscribers: p50 %.3f ms p99 %.3f ms; pipe p50 %.3f ms p99 %.3f ms"
          % (SUBSCRIBERS, statistics.median(samples), run.percentile(samples, 0.99), statistics.median(base),
             run.percentile(base, 0.99)), flush=True)
    return markdown(r, samples, base)


if __name__ == "__main__":
    print(main())
