#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""agentd benchmarks. Every figure is printed beside a baseline measured in the same run, and
written to BENCHMARKS.md as a ratio. Run with `make bench` (release build); `bench/run.py --only
events` runs one section (here: the event stream's, bench/events.py; `--only transfer`: the
transfer plugin's, bench/transfer.py; `--only drop`: status while 10,000 job files are dropped at once,
bench/drop.py; `--only memory`: resident memory, bench/memory.py) and replaces just that section of
BENCHMARKS.md. The "Beside systemd and cron" section (`make bench-peers`) is kept as it is.

The agents started here run with `--log-timestamps` (each log line carries CLOCK_MONOTONIC, which
the figures are timed against) and `--bench-probes` (the lines some figures are read from: each
scheduler decision's duration, each teardown step's lateness, each sysfs re-read). Neither is on
in service; bench/events.py's QuietAgent runs without both, as shipped.

Figures (issue #2):
  reload   atomic rename of a new .job into jobs.d until agentd has registered it (read from agentd's
           monotonic-timestamped log line), median and p99 over 200 changes, with 1,000 and 10,000
           jobs loaded, beside a minimal C inotify watcher seeing the same rename.
  cold     cold start with 10,000 job files until the control socket answers, beside a C program
           that opens, fstats and reads the same files.
  idle     voluntary context switches of agentd over 60 s with 100 jobs loaded and nothing due, and
           its RSS, beside a process sleeping in the kernel for the same time.
"""
import fcntl, json, os, re, shutil, socket, statistics, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("AGENTD_BIN_DIR", os.path.join(ROOT, ".build-static", "release"))
OUT = os.path.join(ROOT, "bench", "out")
IDLE_SECONDS = int(os.environ.get("BENCH_IDLE_SECONDS", "60"))


def compile_c(name):
    os.makedirs(OUT, exist_ok=True)
    exe = os.path.join(OUT, name)
    subprocess.run(["gcc", "-O2", "-o", exe, os.path.join(ROOT, "bench", name + ".c")], check=True)
    return exe


def percentile(values, p):
    values = sorted(values)
    k = (len(values) - 1) * p
    lo = int(k)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


class Sandbox:
    def __init__(self, jobs, interval="1d"):
        self.root = tempfile.mkdtemp(prefix="agentd-bench-")
        os.chmod(self.root, 0o755)  # plugins run as nobody when the agent is root
        self.etc = os.path.join(self.root, "etc")
        self.jobs = os.path.join(self.etc, "jobs.d")
        os.makedirs(self.jobs)
        os.makedirs(os.path.join(self.etc, "manifests.d"))
        with open(os.path.join(self.etc, "manifests.d", "local.manifest"), "w") as f:
            f.write("[Manifest]\nPermittedIdentifiers=local.*\nBackgroundModes=refresh processing continued\n")
        self.plugin = os.path.join(self.root, "plugin")
        with open(self.plugin, "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(self.plugin, 0o755)
        for i in range(jobs):
            self.write_job(os.path.join(self.jobs, "job%05d.job" % i), "job%05d" % i, interval=interval)
        self.socket = os.path.join(self.root, "agentd.sock")

    def write_job(self, path, name, interval="1d"):
        with open(path, "w") as f:
            f.write("[Job]\nIdentifier=local.%s\nKind=processing\nExec=%s\nInterval=%s\n" % (name, self.plugin, interval))
        os.chmod(path, 0o644)

    def cleanup(self):
        shutil.rmtree(self.root, ignore_errors=True)


def as_installed(sandbox):
    """A wrapper that runs agentd as the package installs it with respect to the user database:
    with an `agentd` group in /etc/group (the package's sysusers.d makes one). Without it the
    socket's group lookup misses /etc/group and glibc loads libnss_systemd (nsswitch.conf:
    `group: files systemd`), 0.3 MB a bare host measures and an install never maps. The host's
    /etc/group is not touched: the agent gets a copy, bind-mounted in a mount namespace of its own
    (`unshare` execs, so the agent keeps the pid the bench reads). Empty when the host has the group."""
    with open("/etc/group") as f:
        text = f.read()
    if re.search(r"^agentd:", text, re.M):
        return []
    used = {int(line.split(":")[2]) for line in text.splitlines() if line.count(":") >= 3 and line.split(":")[2].isdigit()}
    gid = next(g for g in range(999, 100, -1) if g not in used)  # a system gid, as sysusers picks one
    path = os.path.join(sandbox.root, "group")
    with open(path, "w") as f:
        f.write(text + ("" if text.endswith("\n") else "\n") + "agentd:x:%d:\n" % gid)
    os.chmod(path, 0o644)
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
            'mount --bind "$0" /etc/group && exec "$@"', path]


class Agent:
    """agentd with its stderr read by a thread; waits on log lines, never sleeps blindly."""

    def __init__(self, sandbox, extra=(), wrapper=()):
        self.lines = []
        self.cond = threading.Condition()
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            list(wrapper) + [os.path.join(BIN, "agentd"), "--config-dir", sandbox.etc, "--state-dir",
             os.path.join(sandbox.root, "state"), "--socket", sandbox.socket, "--log-timestamps", "--bench-probes"] + list(extra),
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
        # A 1 MiB log pipe (F_SETPIPE_SZ): the reader below yields its CPU to the agent, and a
        # full pipe would stop the agent in write(2) until it caught up (a launch burst writes
        # ~60 kB of log a second; the default pipe holds 64 kB).
        try:
            fcntl.fcntl(self.proc.stderr.fileno(), 1031, 1 << 20)
        except OSError:
            pass
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        # SCHED_BATCH: a batch thread never preempts the running one when it wakes, so reading
        # the agent's log (a wakeup for each line: 200 in an expiry burst, ~700 a second in a
        # launch burst, each of which took the CPU from agentd's loop) does not slow the agent
        # it measures. Its lines arrive a little later (the pipe above holds them meanwhile).
        try:
            os.sched_setscheduler(threading.get_native_id(), os.SCHED_BATCH, os.sched_param(0))
        except (AttributeError, OSError):
            pass
        for raw in self.proc.stderr:
            with self.cond:
                self.lines.append(raw.decode(errors="replace"))
                self.cond.notify_all()

    def wait_for(self, pattern, start=0, timeout=60):
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.cond:
            index = start
            while True:
                while index < len(self.lines):
                    m = regex.search(self.lines[index])
                    if m:
                        return m, index + 1
                    index += 1
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("no log line matching %r; last lines:\n%s" % (pattern, "".join(self.lines[-10:])))
                self.cond.wait(left)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)


def mono_of(line):
    m = re.search(r"\[mono=([0-9.]+)\]", line)
    return float(m.group(1))


def status_request(path, timeout=5):
    """One `status` round trip on a new connection: the parsed answer."""
    return json.loads(status_bytes(path, timeout))


def status_bytes(path, timeout=5):
    """One `status` round trip on a new connection: the answer as read, up to its newline (or
    what came before the agent closed the connection)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(path)
        s.sendall(b'{"command":"status"}\n')
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    finally:
        s.close()
    return data


def status_answers(path):
    try:
        return status_request(path).get("ok") is True
    except OSError:
        return False


def bench_reload(jobs, changes=200):
    sandbox = Sandbox(jobs)
    watcher_exe = compile_c("inotify_baseline")
    agent = Agent(sandbox)
    try:
        _, cursor = agent.wait_for(r"ready:", timeout=120)
        cursor, burst = settled(agent, cursor)
        watcher = subprocess.Popen([watcher_exe, sandbox.jobs], stdout=subprocess.PIPE)
        assert watcher.stdout.readline().strip() == b"ready"
        agent_lat, c_lat = [], []
        for i in range(changes):
            name = "new%05d" % i
            temp = os.path.join(sandbox.jobs, ".%s.job.tmp" % name)
            sandbox.write_job(temp, name)
            t0 = time.clock_gettime(time.CLOCK_MONOTONIC)
            os.rename(temp, os.path.join(sandbox.jobs, name + ".job"))
            m, cursor = agent.wait_for(r"registered local\.%s\b" % name, start=cursor, timeout=30)
            agent_lat.append(mono_of(m.string) - t0)
            seen = watcher.stdout.readline().decode().split()
            c_lat.append(float(seen[0]) - t0)
        watcher.kill()
        return agent_lat, c_lat, burst
    finally:
        agent.stop()
        sandbox.cleanup()


# agentd.conf's `DailyBudget=` default: discretionary launches per manifest per day.
DAILY_BUDGET = 48


def settled(agent, cursor):
    """Waits out the agent's first decisions after start: every sandbox job is due at once
    (never run), so it launches until the manifest's daily budget is spent and defers the rest.
    Reload latency is measured on an agent that has done that; the start-up burst gets its own
    column, the longest scheduler decision until then. Returns the log cursor after the last
    start-up run ended and that decision's length in seconds."""
    for _ in range(DAILY_BUDGET):
        _, cursor = agent.wait_for(r"run r\d+ of \S+ ended:", start=cursor, timeout=120)
    _, cursor = agent.wait_for(r"scheduler: run-ended decided in", start=cursor, timeout=60)
    with agent.cond:
        lines = agent.lines[:cursor]
    started = sum(" started (" in line for line in lines)
    if started != DAILY_BUDGET:
        raise RuntimeError("bench: %d runs started at start-up, not the daily budget's %d: set DAILY_BUDGET in "
                           "bench/run.py to agentd.conf's DailyBudget= default" % (started, DAILY_BUDGET))
    decisions = [int(m.group(1)) for m in (re.search(r"decided in (\d+) us", line) for line in lines) if m]
    return cursor, max(decisions, default=0) / 1e6


def bench_cold(jobs=10000):
    sandbox = Sandbox(jobs)
    reader = compile_c("read_baseline")
    try:
        baseline = float(subprocess.run([reader, sandbox.jobs], capture_output=True, check=True).stdout.split()[0])
        start = time.monotonic()
        agent = Agent(sandbox)
        while not status_answers(sandbox.socket):
            if agent.proc.poll() is not None:
                raise RuntimeError("agentd exited during cold start")
            time.sleep(0.001)
        elapsed = time.monotonic() - start
        agent.stop()
        return elapsed, baseline
    finally:
        sandbox.cleanup()


def ctxt(pid):
    with open("/proc/%d/status" % pid) as f:
        text = f.read()
    vol = int(re.search(r"voluntary_ctxt_switches:\s+(\d+)", text).group(1))
    rss = int(re.search(r"VmRSS:\s+(\d+)", text).group(1))
    return vol, rss


def thread_ctxt(pid):
    total = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
            total += int(re.search(r"voluntary_ctxt_switches:\s+(\d+)", f.read()).group(1))
    return total


def bench_idle(jobs=100):
    # Registered but not due (no Interval=): nothing to do, so the agent must sleep.
    sandbox = Sandbox(jobs, interval="none")
    agent = Agent(sandbox, wrapper=as_installed(sandbox))
    try:
        agent.wait_for(r"ready:", timeout=60)
        status_answers(sandbox.socket)
        sleeper = subprocess.Popen(["sleep", str(IDLE_SECONDS + 5)])
        a0 = thread_ctxt(agent.proc.pid)
        s0 = thread_ctxt(sleeper.pid)
        time.sleep(IDLE_SECONDS)  # the measurement window itself, not a wait for an event
        a1 = thread_ctxt(agent.proc.pid)
        s1 = thread_ctxt(sleeper.pid)
        _, rss = ctxt(agent.proc.pid)
        sleeper.kill()
        return a1 - a0, s1 - s0, rss
    finally:
        agent.stop()
        sandbox.cleanup()


class AgentConnection:
    """A connection to the control socket read one JSON line at a time (an event stream, or
    requests answered in turn)."""

    def __init__(self, path, timeout=None):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if timeout is not None:
            self.socket.settimeout(timeout)
        self.socket.connect(path)
        self.pending = b""

    def send(self, line):
        self.socket.sendall(line + b"\n")

    def next(self):
        while b"\n" not in self.pending:
            chunk = self.socket.recv(1 << 20)
            if not chunk:
                raise RuntimeError("agentd closed the connection")
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)

    def close(self):
        self.socket.close()


def request_many(path, lines):
    """Sends every request line at once on one connection and reads as many answers."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(b"".join(line + b"\n" for line in lines))
    data = b""
    while data.count(b"\n") < len(lines):
        chunk = s.recv(1 << 20)
        if not chunk:
            break
        data += chunk
    s.close()
    return [json.loads(line) for line in data.splitlines()]


def write_raw_job(sandbox, name, body):
    path = os.path.join(sandbox.jobs, name + ".job")
    with open(path, "w") as f:
        f.write(body)
    os.chmod(path, 0o644)


def bench_launch(n=2000):
    baseline_exe = compile_c("spawn_baseline")
    out = subprocess.run([baseline_exe, str(n)], capture_output=True, check=True).stdout.split()
    raw_rate = n / float(out[0])
    sandbox = Sandbox(0)
    write_raw_job(sandbox, "true", "[Job]\nIdentifier=local.true\nKind=continued\nExec=/bin/true\nProgressTimeout=1h\n")
    agent = Agent(sandbox)
    try:
        _, cursor = agent.wait_for(r"ready:", timeout=60)
        start = time.monotonic()
        answers = request_many(sandbox.socket, [b'{"command":"simulate-launch","target":"local.true"}'] * n)
        assert all(a.get("ok") for a in answers), answers[:3]
        ended = 0
        while ended < n:
            m, cursor = agent.wait_for(r"of local\.true ended: (\S+)", start=cursor, timeout=120)
            assert m.group(1) == "success", m.string
            ended += 1
        elapsed = time.monotonic() - start
        return n / elapsed, raw_rate
    finally:
        agent.stop()
        sandbox.cleanup()


def bench_expiry(n=200):
    timer_exe = compile_c("timer_baseline")
    base = [float(x) for x in subprocess.run([timer_exe, str(n)], capture_output=True, check=True).stdout.split()]
    sandbox = Sandbox(0)
    plugin = os.path.join(sandbox.root, "stubborn")
    with open(plugin, "w") as f:
        f.write("#!/bin/sh\ntrap '' TERM\nexec sleep 600\n")
    os.chmod(plugin, 0o755)
    write_raw_job(sandbox, "stubborn", "[Job]\nIdentifier=local.stubborn\nKind=continued\nExec=%s\n"
                  "MaxRuntime=3s\nGracePeriod=1s\nProgressTimeout=1h\n" % plugin)
    agent = Agent(sandbox)
    try:
        _, cursor = agent.wait_for(r"ready:", timeout=60)
        answers = request_many(sandbox.socket, [b'{"command":"simulate-launch","target":"local.stubborn"}'] * n)
        assert all(a.get("ok") for a in answers), answers[:3]
        term, kill, ended = [], [], 0
        while len(term) < n or len(kill) < n or ended < n:
            m, cursor = agent.wait_for(r": (sendSignal\(15\)|killAll) sent (-?\d+) us after|of local\.stubborn ended: (\S+)",
                                       start=cursor, timeout=60)
            if m.group(3):
                assert m.group(3) == "expired(max-runtime)", m.string
                ended += 1
            else:
                (term if m.group(1).startswith("send") else kill).append(int(m.group(2)) / 1000.0)
        return term, kill, [b / 1000.0 for b in base]
    finally:
        agent.stop()
        sandbox.cleanup()


def bench_progress(lines=2000000, rounds=3):
    """Median of `rounds` runs each, the C reader and agentd alternating (one run of either
    moved by ±15 % from run to run on the shared machine)."""
    gen = compile_c("progress_gen")
    reader = compile_c("pipe_reader")

    def c_rate():
        producer = subprocess.Popen([gen, str(lines)], stdout=subprocess.PIPE)
        out = subprocess.run([reader], stdin=producer.stdout, capture_output=True, check=True).stdout.split()
        producer.wait()
        return int(out[1]) / float(out[0])

    sandbox = Sandbox(0)
    write_raw_job(sandbox, "progress", "[Job]\nIdentifier=local.progress\nKind=continued\nExec=%s %d\n" % (gen, lines))
    agent = Agent(sandbox)
    try:
        _, cursor = agent.wait_for(r"ready:", timeout=60)
        status_answers(sandbox.socket)
        _, rss_before = ctxt(agent.proc.pid)
        rates, c_rates = [], []
        for _ in range(rounds):
            c_rates.append(c_rate())
            request_many(sandbox.socket, [b'{"command":"simulate-launch","target":"local.progress"}'])
            started, cursor = agent.wait_for(r"of local\.progress started", start=cursor)
            ended, cursor = agent.wait_for(r"of local\.progress ended: success", start=cursor, timeout=120)
            rates.append(lines / (mono_of(ended.string) - mono_of(started.string)))
        _, rss_after = ctxt(agent.proc.pid)
        return statistics.median(rates), statistics.median(c_rates), rss_after - rss_before
    finally:
        agent.stop()
        sandbox.cleanup()


_compiled = {}


def status_latency(path, n=100):
    """`n` sequential `status` round trips, each on a new connection (as agentctl makes one), in
    milliseconds, timed by bench/status_client.c in a process of its own. Timed from this process,
    a round trip would also hold the answer's JSON parse and any wait for Python's GIL, which the
    thread reading the agent's log takes (in A/B runs the two differed within this host's noise)."""
    if "status_client" not in _compiled:
        _compiled["status_client"] = compile_c("status_client")
    out = subprocess.run([_compiled["status_client"], path, str(n)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return [float(x) / 1000.0 for x in out.stdout.split()]


# Enough that the p99 is not simply the slowest round trip; 400 take about a second of the burst.
STATUS_SAMPLES_WHILE_LAUNCHING = 400


def bench_scheduler(jobs):
    """Scheduler decision cost, as agentd measures each `Scheduler.handle` call, with `jobs` jobs
    loaded (half with Interval=1d, all new so all of those are due at start-up): the first 1,000
    launches through MaxConcurrent=8 (run starts, run ends, ticks), then 200 triggers of jobs
    without an interval; and `status` round trips."""
    sandbox = Sandbox(0)
    with open(os.path.join(sandbox.etc, "agentd.conf"), "w") as f:
        f.write("[Agent]\nMaxConcurrent=8\nDailyBudget=100000\n")
    for i in range(jobs):
        interval = "1d" if i % 2 == 0 else "none"
        sandbox.write_job(os.path.join(sandbox.jobs, "job%05d.job" % i), "job%05d" % i, interval=interval)
    agent = Agent(sandbox)
    try:
        _, cursor = agent.wait_for(r"ready:", timeout=120)
        launches = min(1000, jobs // 2)
        for _ in range(launches):
            _, cursor = agent.wait_for(r"of local\.job\d+ ended: success", start=cursor, timeout=120)
        targets = [b'{"command":"trigger","target":"local.job%05d"}' % i for i in range(1, min(jobs, 400), 2)][:200]
        answers = request_many(sandbox.socket, targets)
        assert all(a.get("ok") for a in answers), answers[:2]
        triggered = 0
        while triggered < len(targets):
            _, cursor = agent.wait_for(r"scheduler: trigger decided", start=cursor, timeout=60)
            triggered += 1
        status = status_latency(sandbox.socket, n=STATUS_SAMPLES_WHILE_LAUNCHING)
        decisions = {}
        for line in agent.lines[:cursor]:
            m = re.search(r"scheduler: ([a-z-]+)(?:\(\d+\))? decided in (\d+) us", line)
            if m:
                decisions.setdefault(m.group(1), []).append(int(m.group(2)) / 1000.0)
        # Then quiet: every due job and every trigger has run; 10,000 jobs stay loaded.
        expected = (jobs + 1) // 2 + len(targets)
        ended = 0
        scan = 0
        while ended < expected:
            _, scan = agent.wait_for(r"of local\.job\d+ ended:", start=scan, timeout=300)
            ended += 1
        quiet = status_latency(sandbox.socket)
        return decisions, (status, quiet)
    finally:
        agent.stop()
        sandbox.cleanup()


def main():
    results = []
    for jobs in (1000, 10000):
        a, c, burst = bench_reload(jobs)
        row = dict(jobs=jobs, agent_p50=statistics.median(a) * 1e3, agent_p99=percentile(a, 0.99) * 1e3,
                   c_p50=statistics.median(c) * 1e3, c_p99=percentile(c, 0.99) * 1e3, burst=burst * 1e3)
        results.append(row)
        print("reload with %(jobs)d jobs: agentd p50 %(agent_p50).3f ms p99 %(agent_p99).3f ms; "
              "C inotify p50 %(c_p50).3f ms p99 %(c_p99).3f ms; longest start-up decision %(burst).1f ms" % row, flush=True)
    cold, cold_base = bench_cold()
    print("cold start, 10,000 jobs: agentd %.3f s; C read of the same files %.3f s" % (cold, cold_base), flush=True)
    idle_agent, idle_sleep, rss = bench_idle()
    print("idle %d s, 100 jobs: agentd %d voluntary context switches, sleep(1) %d; RSS %d KiB"
          % (IDLE_SECONDS, idle_agent, idle_sleep, rss), flush=True)
    launch_rate, raw_rate = bench_launch()
    print("launch: agentd %.0f/s, C posix_spawn+waitpid %.0f/s" % (launch_rate, raw_rate), flush=True)
    term, kill, base = bench_expiry()
    print("expiry, 200 runs: SIGTERM p50 %.3f ms p99 %.3f ms; SIGKILL p50 %.3f ms p99 %.3f ms; C timerfd p99 %.3f ms"
          % (statistics.median(term), percentile(term, 0.99), statistics.median(kill), percentile(kill, 0.99),
             percentile(base, 0.99)), flush=True)
    progress_rate, c_rate, rss_growth = bench_progress()
    print("progress: agentd %.0f lines/s, C reader %.0f lines/s, RSS growth %d KiB" % (progress_rate, c_rate, rss_growth), flush=True)
    small = bench_scheduler(100)
    large = bench_scheduler(10000)
    for label, (decisions, status) in (("100", small), ("10000", large)):
        parts = ["%s %d× p50 %.3f ms p99 %.3f ms" % (k, len(v), statistics.median(v), percentile(v, 0.99))
                 for k, v in sorted(decisions.items())]
        busy, quiet = status
        print("scheduler with %s jobs: %s; status while launching p50 %.2f ms p99 %.2f ms, quiet p50 %.2f ms p99 %.2f ms"
              % (label, "; ".join(parts), statistics.median(busy), percentile(busy, 0.99),
                 statistics.median(quiet), percentile(quiet, 0.99)), flush=True)
    core_small, core_large = bench_scheduler_core(100), bench_scheduler_core(10000)
    core_large["start-up"] = bench_scheduler_core(10000, "--start-up")
    print("scheduler core, 24 h virtual: 100 jobs tick p50 %.4f ms; 10,000 jobs tick p50 %.4f ms, status query p50 %.3f ms"
          % (core_small["tick"]["p50"], core_large["tick"]["p50"], core_large["waiting"]["p50"]), flush=True)
    import power
    power_section = power.main()
    import events
    events_section = events.main()
    import transfer
    transfer_section = transfer.main()
    import drop
    drop_section = drop.main()
    import issue32_extra
    extra_section = issue32_extra.section()
    # `make bench-peers` writes its own section, and the record of repeated runs is written by
    # hand: this run keeps both.
    kept = [kept_section(title) for title in KEPT_SECTIONS]
    import memory
    memory_section = memory.main()
    write_markdown(results, cold, cold_base, idle_agent, idle_sleep, rss)
    append_runs_markdown(launch_rate, raw_rate, term, kill, base, progress_rate, c_rate, rss_growth)
    append_scheduler_markdown(small, large)
    append_core_markdown(core_small, core_large)
    with open(os.path.join(ROOT, "BENCHMARKS.md"), "a") as f:
        f.write(power_section)
        f.write(events_section)
        f.write(transfer_section)
        f.write(memory_section)
        f.write("\n" + drop_section)
        f.write("\n" + extra_section)
        for section in kept:
            if section:
                f.write("\n" + section)


KEPT_SECTIONS = ["## Issue 17 targets over repeated runs", "## Issue 32 targets over repeated runs",
                 "## Beside systemd and cron"]


def kept_section(title):
    """The section of BENCHMARKS.md under `title`, up to the next "## " title, or None."""
    try:
        with open(os.path.join(ROOT, "BENCHMARKS.md")) as f:
            lines = f.read().split("\n")
    except OSError:
        return None
    start = next((i for i, line in enumerate(lines) if line == title), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return "\n".join(lines[start:end]).rstrip() + "\n"


def replace_section(markdown, section):
    """BENCHMARKS.md with `section` (starting with its "## " title) in place of the section of the
    same title, or before "## Notes on this run", or at the end."""
    title = section.strip().split("\n", 1)[0]
    lines = markdown.split("\n")
    start = next((i for i, line in enumerate(lines) if line == title), None)
    if start is not None:
        end = next((i for i in range(start + 1, len(lines))
                    if lines[i].startswith("## ") and not lines[i - 1].startswith("## ")), len(lines))
    else:
        start = end = next((i for i, line in enumerate(lines) if line == "## Notes on this run"), len(lines))
    return "\n".join(lines[:start] + section.strip().split("\n") + [""] + lines[end:])


def run_only(name):
    """Runs one section's benchmarks and puts its section into the existing BENCHMARKS.md."""
    # The module and its function that measures and returns the section, as main() calls it.
    sections = {"events": ("events", "main"), "transfer": ("transfer", "main"), "drop": ("drop", "main"),
                "memory": ("memory", "main"), "extra": ("issue32_extra", "section")}
    if name not in sections:
        sys.exit("bench/run.py --only: \"%s\" is not a section that runs alone (%s)" % (name, ", ".join(sorted(sections))))
    module, function = sections[name]
    section = getattr(__import__(module), function)()
    path = os.path.join(ROOT, "BENCHMARKS.md")
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(replace_section(text, section))


def bench_scheduler_core(jobs, *flags):
    """The pure scheduler through 24 h of virtual time (bench/SchedulerBench): per-event decision
    times and the `status` query, measured with the real clock inside one process. `--start-up`:
    the load and the first tick with every job due at once instead."""
    out = subprocess.run([os.path.join(BIN, "scheduler-bench"), str(jobs), *flags], capture_output=True, check=True, text=True)
    return json.loads(out.stdout)


def append_core_markdown(small, large):
    def cell(data, kind):
        v = data.get(kind)
        return "%.4f / %.4f ms (%d)" % (v["p50"], v["p99"], v["n"]) if v else "-"
    kinds = ["tick", "run-started", "run-ended", "trigger", "waiting"]
    ratio = large["tick"]["p50"] / max(small["tick"]["p50"], 1e-9)
    lines = [
        "",
        "## The scheduling core alone (issue #4: a tick < 1 ms median with 10,000 jobs)",
        "",
        "`scheduler-bench` drives the pure `Scheduler` through 24 hours of virtual time: half the jobs on",
        "intervals from 15 min to 4 h, the rest triggered every 7 s, runs of 5 s, `MaxConcurrent=8`; every",
        "`handle` call and the `status` query (`waitingSummary`, first 100 of the waiting work and the count)",
        "every 5 virtual minutes timed with the real clock. Baseline: 100 jobs. Cells are p50 / p99 (samples).",
        "",
        "| jobs | tick | run-started | run-ended | trigger | status query |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
        "| 100 (baseline) | %s |" % " | ".join(cell(small, k) for k in kinds),
        "| 10,000 | %s |" % " | ".join(cell(large, k) for k in kinds),
        "",
        "Tick p50, 10,000 ÷ 100 jobs: %.1f× for 100× the jobs." % ratio,
        "",
        "A start with all 10,000 due at once (new `Interval=` jobs, `DailyBudget=48`; median of 7 fresh",
        "schedulers, `scheduler-bench 10000 --start-up`): loading them %.1f ms, the first tick (the catch-up"
        % large["start-up"]["jobs-changed"],
        "plan, every job to the ready heap, the budget spent and the rest held) %.1f ms."
        % large["start-up"]["first-tick"],
        "",
    ]
    with open(os.path.join(ROOT, "BENCHMARKS.md"), "a") as f:
        f.write("\n".join(lines))


def write_markdown(reload_rows, cold, cold_base, idle_agent, idle_sleep, rss):
    machine = "%s, %d cores, kernel %s" % (os.uname().machine, os.cpu_count(), os.uname().release)
    lines = [
        "# Benchmarks",
        "",
        "Measured by `make bench` (`bench/run.py`) on %s, %s, with the shipped build (release," % (machine, time.strftime("%Y-%m-%d")),
        "Swift runtime linked statically: `.build-static/release`). Every figure stands beside a",
        "baseline measured in the same run; ratios are agentd ÷ baseline. Re-run `make bench` to refresh this page.",
        "",
        "## Config reload latency (issue #2; target p99 < 10 ms with 10,000 jobs, not growing with jobs)",
        "",
        "Atomic rename of a new `.job` into `jobs.d` → agentd's log line saying it registered the job (CLOCK_MONOTONIC",
        "on both sides), 200 changes. Baseline: a minimal C inotify watcher (`bench/inotify_baseline.c`) seeing the same rename.",
        "Every loaded job is due at start (never run): the agent launches until the manifest's daily budget (48) is",
        "spent and defers the rest. The changes start once it has (every start-up run ended); the last column is the",
        "longest single scheduler decision before that, during which a change would have waited.",
        "",
        "| jobs loaded | agentd p50 | agentd p99 | C watcher p50 | C watcher p99 | p99 ratio | longest start-up decision |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in reload_rows:
        lines.append("| %d | %.3f ms | %.3f ms | %.3f ms | %.3f ms | %.1f× | %.1f ms |" % (
            r["jobs"], r["agent_p50"], r["agent_p99"], r["c_p50"], r["c_p99"], r["agent_p99"] / max(r["c_p99"], 1e-6),
            r["burst"]))
    lines += [
        "",
        "## Cold start (target < 1 s with 10,000 jobs)",
        "",
        "Spawn of agentd → the control socket answers `status`, 10,000 job files. Baseline: a C program",
        "(`bench/read_baseline.c`) opening, fstat-ing and reading the same files.",
        "",
        "| agentd | C read baseline | ratio |",
        "| ---: | ---: | ---: |",
        "| %.3f s | %.3f s | %.1f× |" % (cold, cold_base, cold / max(cold_base, 1e-6)),
        "",
        "## Idle cost (target: zero wakeups per minute, RSS < 15 MB with 100 jobs)",
        "",
        "Voluntary context switches of every agentd thread over %d s with 100 jobs loaded and nothing due (no `Interval=`);" % IDLE_SECONDS,
        "baseline: `sleep` over the same window.",
        "",
        "| agentd switches | sleep switches | agentd RSS |",
        "| ---: | ---: | ---: |",
        "| %d | %d | %.1f MB |" % (idle_agent, idle_sleep, rss / 1024),
        "",
        "Where the memory goes, and RSS with 10,000 jobs: \"Memory\" below (bench/memory.py).",
        "",
    ]
    with open(os.path.join(ROOT, "BENCHMARKS.md"), "w") as f:
        f.write("\n".join(lines))


def append_runs_markdown(launch_rate, raw_rate, term, kill, base, progress_rate, c_rate, rss_growth):
    lines = [
        "",
        "## Launch throughput (issue #3; target ≥ 0.5× the raw rate)",
        "",
        "2,000 `simulate launch` requests of a job whose plugin is `/bin/true`, sent in one burst, until the",
        "2,000th run is recorded ended. Baseline: a C loop of posix_spawn + waitpid (`bench/spawn_baseline.c`).",
        "",
        "| agentd | C posix_spawn + waitpid | ratio |",
        "| ---: | ---: | ---: |",
        "| %.0f launches/s | %.0f launches/s | %.2f× |" % (launch_rate, raw_rate, launch_rate / raw_rate),
        "",
        "## Expiration precision (target: SIGTERM and SIGKILL within 2 ms of their due time, p99)",
        "",
        "200 concurrent runs of a plugin that ignores SIGTERM, `MaxRuntime=3s`, `GracePeriod=1s`; agentd measures",
        "each signal right after sending it against its due time. Baseline: 200 deadlines on one timerfd in a C",
        "epoll loop (`bench/timer_baseline.c`).",
        "",
        "| | p50 | p99 | max |",
        "| --- | ---: | ---: | ---: |",
        "| agentd SIGTERM | %.3f ms | %.3f ms | %.3f ms |" % (statistics.median(term), percentile(term, 0.99), max(term)),
        "| agentd SIGKILL | %.3f ms | %.3f ms | %.3f ms |" % (statistics.median(kill), percentile(kill, 0.99), max(kill)),
        "| C timerfd loop | %.3f ms | %.3f ms | %.3f ms |" % (statistics.median(base), percentile(base, 0.99), max(base)),
        "",
        "## Progress throughput (targets ≥ 0.25× a C reader, issue 32: ≥ 0.6×; RSS growth < 2 MB)",
        "",
        "A plugin writing 2,000,000 `PROGRESS=` lines block-buffered (`bench/progress_gen.c`), from agentd's",
        "start to end log lines. Baseline: the same generator piped into a C line counter (`bench/pipe_reader.c`).",
        "Median of 3 runs of each, alternating, the agent's runs in one agent (RSS growth: before the first, after the last).",
        "",
        "| agentd | C reader | ratio | agentd RSS growth |",
        "| ---: | ---: | ---: | ---: |",
        "| %.2fM lines/s | %.2fM lines/s | %.2f× | %d KiB |" % (progress_rate / 1e6, c_rate / 1e6, progress_rate / c_rate, rss_growth),
        "",
    ]
    with open(os.path.join(ROOT, "BENCHMARKS.md"), "a") as f:
        f.write("\n".join(lines))


def append_scheduler_markdown(small, large):
    kinds = ["tick", "run-started", "run-ended", "trigger"]
    def row(label, data):
        decisions, status = data
        cells = []
        for k in kinds:
            v = decisions.get(k, [])
            cells.append("%.3f / %.3f ms (%d)" % (statistics.median(v), percentile(v, 0.99), len(v)) if v else "-")
        busy, quiet = status
        return "| %s | %s | %.2f / %.2f ms | %.2f / %.2f ms |" % (
            label, " | ".join(cells), statistics.median(busy), percentile(busy, 0.99),
            statistics.median(quiet), percentile(quiet, 0.99))
    ratio = statistics.median(large[0].get("trigger", [0])) / max(statistics.median(small[0].get("trigger", [1])), 1e-6)
    lines = [
        "",
        "## Scheduling decisions and status (issue #4; targets: a tick < 1 ms median with 10,000 jobs, O(log n) per decision, `status` < 20 ms)",
        "",
        "Jobs loaded, half with `Interval=1d` (all new, so due at once), `MaxConcurrent=8`: agentd measures each",
        "`Scheduler.handle` call over its first 1,000 launches (ticks, run starts and ends) and 200 `trigger`",
        "requests of jobs without an interval; `status` is a socket round trip on a new connection, timed by",
        "`bench/status_client.c` in a process of its own (%d samples while the rest of the due jobs are still" % STATUS_SAMPLES_WHILE_LAUNCHING,
        "launching, then 100 once all have run).",
        "Baseline: the same with 100 jobs (50 launches), in the same run. Cells are p50 / p99 (samples).",
        "",
        "| jobs | tick | run-started | run-ended | trigger | status while launching | status, quiet |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        row("100 (baseline)", small),
        row("10,000", large),
        "",
        "Trigger decision p50, 10,000 ÷ 100 jobs: %.1f× for 100× the jobs." % ratio,
        "",
    ]
    with open(os.path.join(ROOT, "BENCHMARKS.md"), "a") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--only":
        run_only(sys.argv[2])
    elif len(sys.argv) > 1:
        sys.exit("usage: bench/run.py [--only events|transfer|drop|memory|extra]")
    else:
        main()
