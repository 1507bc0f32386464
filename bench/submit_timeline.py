#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Where a submission's time goes (issue 32): kernel tracepoints, recorded system-wide with
`perf record -a` while this script submits a continued job whose plugin is /bin/true to a
quiet agent (as `bench/events.py` does), give per submission the instants of

  send      this client's write of the submission
  read      the loop's read of it
  fork      the run's child created (sched_process_fork)
  execveat  the child, done with its set-up, calls execveat
  exec      the plugin runs (sched_process_exec)
  exit      the plugin has exited (sched_process_exit)
  waitid    the loop reaps it through its pidfd
  ended     the loop writes the run's `run-ended` event
  sync      the state writer's fdatasync, and the durable answer the loop writes after it

and the script prints the median and p90 of each step. A diagnostic, not part of `make bench`:
it needs root and perf (Debian: linux-perf), and tracing costs a little of every step.

With --functions, uprobes on agentd's own functions (FUNCTIONS, found by symbol in the binary)
split the loop's part further: from the read to the child's creation, and from the reap to
`run-ended`, function by function. Each probe costs the loop about a microsecond or two.

  bench/submit_timeline.py [SUBMISSIONS] [--functions]   (default 300; release build, as `make bench`)
"""
import os, re, statistics, subprocess, sys, tempfile, time

import events
import run

EVENTS = ["sched:sched_process_fork", "sched:sched_process_exec", "sched:sched_process_exit",
          "syscalls:sys_enter_execveat", "syscalls:sys_enter_execve", "syscalls:sys_exit_wait4",
          "syscalls:sys_enter_waitid", "syscalls:sys_enter_sendto",
          "syscalls:sys_exit_read", "syscalls:sys_enter_fdatasync", "syscalls:sys_exit_fdatasync"]
LINE = re.compile(r"\s*(\S+)\s+(\d+)\s+\[\d+\]\s+([\d.]+):\s+(\S+):\s*(.*)")
# The answer ("submitted … as request N, run rN") is shorter than any run event.
ANSWER_MAX = 0xa0
STEPS = [("send", "read"), ("read", "fork"), ("fork", "execveat"), ("execveat", "exec"), ("exec", "exit"),
         ("exit", "waitid"), ("waitid", "ended"), ("send", "ended"), ("fork", "syncstart"),
         ("syncstart", "syncend"), ("syncend", "answer"), ("send", "answer")]


# (step name, the start of a mangled symbol) in the order the loop reaches them.
FUNCTIONS = [
    ("handle", "$s11AgentDaemon14ControlHandlerV6handleyy0A6System0C6ServerC7RequestVF"),
    ("driver_submit", "$s11AgentDaemon15SchedulerDriverC6submit_5reply10unwritabley"),
    ("scheduler", "$s9AgentCore9SchedulerV6handle_3nowSayAA0C6ActionOGAA0C5EventO_AA0C4TimeVtF"),
    ("perform", "$s11AgentDaemon15SchedulerDriverC7perform"),
    ("launch", "$s11AgentDaemon13RunSupervisorC6launchyy0A4Core11LaunchOrderVF"),
    ("launcher", "$s11AgentDaemon11RunLauncherC5start_9arguments6events"),
    ("path_walk", "$s10AgentPOSIX8PathWalkO4walkys6ResultOyAcEVAA11SystemErrorVGSSFZ"),
    ("state_dir", "$s11AgentDaemon11RunLauncherC21prepareStateDirectory"),
    ("cgroups", "$s11AgentDaemon11RunLauncherC14prepareCgroupsys6ResultOy0A6System0C6CgroupCSgAA13LaunchProblemVGAA06ActiveC0CF"),
    ("spawner", "$s11AgentSystem13PluginSpawnerO5spawnys6ResultOyAA12SpawnedChildVAA12SpawnFailureVGAA0I7RequestVFZ"),
    ("cshim", "cshim_spawn_plugin"),
    ("main_exited", "$s11AgentSystem13PluginProcessC04mainD6Exited"),
    ("gone", "$s11AgentDaemon13RunSupervisorC4goneyy0A4Core0C2IDVF"),
    ("finish", "$s11AgentDaemon13RunSupervisorC6finish_10stopReason"),
]
UPROBES = "/sys/kernel/tracing/uprobe_events"


def file_offsets(binary):
    """{symbol: file offset} of agentd's functions, for uprobes (nm's address, less its load
    segment's address, plus that segment's file offset)."""
    segments = []
    for line in subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True, check=True).stdout.splitlines():
        fields = line.split()
        if fields[:1] == ["LOAD"]:
            segments.append((int(fields[2], 16), int(fields[1], 16), int(fields[5], 16)))
    offsets = {}
    for line in subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] in "tT":
            address = int(fields[0], 16)
            for vaddr, offset, size in segments:
                if vaddr <= address < vaddr + size:
                    offsets[fields[2]] = address - vaddr + offset
    return offsets


def add_uprobes(binary):
    """One uprobe per FUNCTIONS entry (the shortest symbol with its prefix: the function, not its
    closures or specialisations), as the event agentd:STEP; returns the steps probed."""
    offsets = file_offsets(binary)
    steps = []
    remove_uprobes(step for step, _ in FUNCTIONS)  # left by a run that was interrupted
    # os.open: Python's append mode seeks to the end, which tracefs refuses.
    fd = os.open(UPROBES, os.O_WRONLY | os.O_APPEND)
    try:
        for step, prefix in FUNCTIONS:
            found = sorted((s for s in offsets if s.startswith(prefix)), key=len)
            if not found:
                print("no symbol for %s (%s): left out" % (step, prefix))
                continue
            os.write(fd, b"p:agentd/%s %s:0x%x\n" % (step.encode(), binary.encode(), offsets[found[0]]))
            steps.append(step)
    finally:
        os.close(fd)
    return steps


def remove_uprobes(steps):
    """Removes this script's probes (and only them: other uprobes on the machine stay)."""
    fd = os.open(UPROBES, os.O_WRONLY | os.O_APPEND)
    try:
        for step in steps:
            try:
                os.write(fd, b"-:agentd/%s\n" % step.encode())
            except OSError:
                pass  # not there
    finally:
        os.close(fd)


def submit_once(path):
    """One submission on a fresh subscription, to both its answer and its run's end."""
    c = run.AgentConnection(path)
    try:
        c.send(events.SUBSCRIBE_TRIVIAL)
        c.next()
        c.send(events.SUBMIT_TRIVIAL)
        answered = ended = False
        while not (answered and ended):
            event = c.next()
            answered = answered or "ok" in event
            ended = ended or event.get("type") == "run-ended"
    finally:
        c.close()


def timelines(script, loop, client):
    """Per submission, the instants (ms) of each step, from `perf script` output."""
    runs, current = [], None
    for line in script.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        comm, pid, ts, name, rest = m.group(1), int(m.group(2)), float(m.group(3)) * 1e3, m.group(4), m.group(5)
        length = re.search(r"len: (0x[0-9a-f]+)", rest)
        if pid == client and name.endswith("sys_enter_sendto") and length and int(length.group(1), 16) == len(events.SUBMIT_TRIVIAL) + 1:
            current = {"send": ts}
            runs.append(current)
            continue
        if current is None:
            continue
        child = current.get("child")
        if pid == loop and name.endswith("sys_exit_read") and int(rest.strip(), 16) == len(events.SUBMIT_TRIVIAL) + 1:
            current.setdefault("read", ts)
        elif pid == loop and name.endswith("sched_process_fork") and "fork" not in current:
            current["fork"], current["child"] = ts, int(re.search(r"child_pid=(\d+)", rest).group(1))
        elif pid == child and name.endswith("sys_enter_execveat"):
            current.setdefault("execveat", ts)
        elif pid == child and name.endswith("sched_process_exec"):
            current.setdefault("exec", ts)
        elif pid == child and name.endswith("sched_process_exit"):
            current.setdefault("exit", ts)
        elif pid == loop and name.endswith("sys_enter_waitid") and "which: 0x00000003" in rest:
            current.setdefault("waitid", ts)
        elif pid != loop and name.endswith("sys_enter_fdatasync") and "fork" in current:
            current.setdefault("syncstart", ts)
        elif pid != loop and name.endswith("sys_exit_fdatasync") and "syncstart" in current:
            current.setdefault("syncend", ts)
        elif pid == loop and name.startswith("agentd:"):
            current.setdefault(name.split(":", 1)[1], ts)
        elif pid == loop and name.endswith("sys_enter_sendto") and length:
            # The answer (about 120 bytes) waits for the sync; `run-ended` (about 175) for the reap.
            if int(length.group(1), 16) < ANSWER_MAX:
                if "syncend" in current:
                    current.setdefault("answer", ts)
            elif "waitid" in current:
                current.setdefault("ended", ts)
    return runs


def record(action, data, traced=EVENTS):
    """Runs `action` while perf records `traced` system-wide into `data`; returns `perf script`."""
    perf = subprocess.Popen(["perf", "record", "-a", "-q", "-o", data, "-e", ",".join(traced)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # perf says nothing when it is ready: wait until its output file has its header.
    deadline = time.monotonic() + 30
    while not (os.path.exists(data) and os.path.getsize(data) > 0):
        if perf.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("perf record did not start: %s" % perf.stderr.read().decode(errors="replace"))
        time.sleep(0.05)
    try:
        action()
    finally:
        perf.send_signal(2)
        perf.wait(timeout=60)
    return subprocess.run(["perf", "script", "-i", data], capture_output=True, text=True, check=True).stdout


def baseline_steps(script, parent):
    """The same steps of a C loop's posix_spawn and waitpid of /bin/true (bench/spawn_baseline)."""
    runs, child = [], None
    for line in script.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        pid, ts, name, rest = int(m.group(2)), float(m.group(3)) * 1e3, m.group(4), m.group(5)
        if pid == parent and name.endswith("sched_process_fork"):
            child = int(re.search(r"child_pid=(\d+)", rest).group(1))
            runs.append({"fork": ts})
        elif runs and pid == child and name.endswith("sys_enter_execve"):
            runs[-1].setdefault("execveat", ts)
        elif runs and pid == child and name.endswith("sched_process_exec"):
            runs[-1].setdefault("exec", ts)
        elif runs and pid == child and name.endswith("sched_process_exit"):
            runs[-1].setdefault("exit", ts)
        elif runs and pid == parent and name.endswith("sys_exit_wait4"):
            runs[-1].setdefault("waitid", ts)
    return runs


def show(runs, steps):
    for a, b in steps:
        d = sorted(r[b] - r[a] for r in runs if a in r and b in r)
        if d:
            print("%-9s → %-9s  median %.3f ms  p90 %.3f ms  (%d)" % (a, b, statistics.median(d), d[int(len(d) * 0.9)], len(d)))


def main():
    args = [a for a in sys.argv[1:] if a != "--functions"]
    functions = "--functions" in sys.argv[1:]
    calls = int(args[0]) if args else 300
    probed = add_uprobes(os.path.realpath(os.path.join(run.BIN, "agentd"))) if functions else []
    sandbox = run.Sandbox(0)
    events.continued_job(sandbox, "trivial", "/bin/true")
    agent = events.QuietAgent(sandbox)
    data = tempfile.mktemp(prefix="submit-timeline-", suffix=".perf")
    try:
        agent.wait_for(r"ready:", timeout=60)
        for _ in range(30):
            submit_once(sandbox.socket)
        script = record(lambda: [submit_once(sandbox.socket) for _ in range(calls)], data,
                        EVENTS + ["agentd:" + step for step in probed])
    finally:
        agent.stop()
        sandbox.cleanup()
        if os.path.exists(data):
            os.unlink(data)
        remove_uprobes(probed)
    runs = timelines(script, agent.proc.pid, os.getpid())
    print("%d submissions traced (%d with every step)" % (len(runs), sum(all(s in r for pair in STEPS for s in pair) for r in runs)))
    show(runs, STEPS)
    if probed:
        # Up to the child's exit: the launch; after it, the reap to `run-ended`.
        split = probed.index("main_exited") if "main_exited" in probed else len(probed)
        before = ["read"] + probed[:split] + ["fork"]
        after = ["waitid"] + probed[split + 1:] + ["ended"] if split < len(probed) else []
        print("The loop's part, function by function (uprobes):")
        show(runs, list(zip(before, before[1:])) + list(zip(after, after[1:])))
    spawner = run.compile_c("spawn_baseline")
    try:
        script = record(lambda: subprocess.run([spawner, str(calls)], capture_output=True, check=True), data)
    finally:
        if os.path.exists(data):
            os.unlink(data)
    # The spawner's pid: the parent of the /bin/true children it forked.
    parents = [int(m.group(1)) for m in re.finditer(r"spawn_baseline\s+(\d+) .*sched_process_fork", script)]
    base = baseline_steps(script, max(set(parents), key=parents.count)) if parents else []
    print("C posix_spawn + waitpid of /bin/true, %d traced:" % len(base))
    show(base, [("fork", "execveat"), ("execveat", "exec"), ("exec", "exit"), ("exit", "waitid"), ("fork", "waitid")])


if __name__ == "__main__":
    main()
