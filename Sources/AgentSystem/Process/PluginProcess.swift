// SPDX-License-Identifier: Apache-2.0
import AgentCore
import CShim
import Glibc

/// One plugin run's processes on the event loop: its exit (pidfd), its stdout and stderr (pipes,
/// split into lines), and the end of every process of it (cgroup `populated 0`, or an empty
/// process group). No thread per child; nothing polls while the run is quiet.
///
/// Order of callbacks: lines as they come; `onMainExit` once, when the main process is reaped
/// (leftover processes are killed then, as DESIGN §5 says); `onGone` once, last, when every
/// process of the run has gone and its pipes are drained and closed. A child that could not get
/// to its execve (``ExecHandshake``) has no main exit: `spawnFailure` says why, by `onGone`.
public final class PluginProcess {
    public enum Stream: Sendable { case stdout, stderr }

    /// Reads what one wakeup brought, handing each complete line — and whether it was cut at the
    /// 4096-byte limit — to the function it is given.
    public typealias LineReader = ((UnsafeBufferPointer<UInt8>, Bool) -> Void) -> Void

    public struct Callbacks {
        /// A read's lines: the receiver looks up what it needs once per read, not once per line
        /// (a plugin may print millions of `PROGRESS=` lines), then has the lines read.
        public var onOutput: (Stream, LineReader) -> Void
        public var onMainExit: (ProcessTermination) -> Void
        public var onGone: () -> Void

        public init(onOutput: @escaping (Stream, LineReader) -> Void,
                    onMainExit: @escaping (ProcessTermination) -> Void,
                    onGone: @escaping () -> Void) {
            self.onOutput = onOutput
            self.onMainExit = onMainExit
            self.onGone = onGone
        }

        /// One line at a time, for receivers with nothing to look up.
        public init(onLine: @escaping (Stream, UnsafeBufferPointer<UInt8>, Bool) -> Void,
                    onMainExit: @escaping (ProcessTermination) -> Void,
                    onGone: @escaping () -> Void) {
            self.init(onOutput: { stream, read in read { onLine(stream, $0, $1) } },
                      onMainExit: onMainExit, onGone: onGone)
        }

        /// Hands one line over as a read would.
        public func line(_ stream: Stream, _ bytes: UnsafeBufferPointer<UInt8>, wasCut: Bool) {
            onOutput(stream) { emit in emit(bytes, wasCut) }
        }
    }

    public let pid: pid_t
    /// The run's process group (the child leads a new session, so pgid = pid).
    public var processGroup: pid_t { pid }
    public let cgroup: RunCgroup?
    /// The cgroup outlives this process: the run's next command is spawned into it.
    public var keepsCgroup = false
    public private(set) var termination: ProcessTermination?
    public private(set) var isGone = false
    /// Lines cut at the 4096-byte limit, per run.
    public var truncatedLines: Int { stdoutPipe.truncatedLines + stderrPipe.truncatedLines }

    private let loop: EventLoop
    private let pidfd: Int32
    private var pidfdWatch: WatchToken?
    private var cgroupWatch: WatchToken?
    private var stdoutPipe: PipeLines
    private var stderrPipe: PipeLines
    private var groupCheck: TimerToken?
    /// `killAll` was asked for: a process group re-checked for emptiness is killed again each
    /// time (a fork racing the first SIGKILL).
    private var killing = false
    private var groupCheckDelay: Duration = .milliseconds(1)
    private var callbacks: Callbacks
    private var knownCgroupMembers: Set<pid_t> = []
    private let handshake: ExecHandshake
    private var handshakeWatch: WatchToken?

    /// Why the child never ran the plugin (a failed step between clone and execve), once known;
    /// at the latest when `onGone` is called.
    public var spawnFailure: SpawnFailure? { handshake.failure }

    public init(loop: EventLoop, child: SpawnedChild, cgroup: RunCgroup?, buffer: ReadBuffer,
                callbacks: Callbacks) throws {
        self.loop = loop
        self.pid = child.pid
        self.pidfd = child.pidfd
        self.cgroup = cgroup
        self.callbacks = callbacks
        self.stdoutPipe = PipeLines(fd: child.stdoutFD, buffer: buffer)
        self.stderrPipe = PipeLines(fd: child.stderrFD, buffer: buffer)
        self.handshake = child.handshake
        handshakeWatch = try loop.watch(fd: child.handshake.fd, events: .readable) { [unowned self] _ in
            self.settleHandshake()
        }
        pidfdWatch = try loop.watch(fd: pidfd, events: .readable) { [unowned self] _ in self.mainProcessExited() }
        stdoutPipe.token = try loop.watch(fd: child.stdoutFD, events: .readable) { [unowned self] _ in
            self.drain(.stdout)
        }
        stderrPipe.token = try loop.watch(fd: child.stderrFD, events: .readable) { [unowned self] _ in
            self.drain(.stderr)
        }
        if let cgroup {
            cgroupWatch = try loop.watch(fd: cgroup.eventsFD, events: .priority) { [unowned self] _ in
                // Reading cgroup.events acknowledges the notification; without the read the
                // level-triggered loop would be woken again at once, for as long as the run lives.
                let populated = cgroup.isPopulated
                if !populated { self.checkGone() }
            }
        }
    }

    deinit {
        if let handshakeWatch { loop.unwatch(handshakeWatch) }
        close(pidfd)
    }

    /// The child has exec'd (or failed before): its status pipe is done with.
    private func settleHandshake() {
        guard handshake.read(), let token = handshakeWatch else { return }
        loop.unwatch(token)
        handshakeWatch = nil
    }

    /// Sends `signal` to every process of the run: the process group, and the cgroup's members
    /// (which include setsid'd grandchildren).
    public func signalAll(_ signal: Int32) {
        guard !isGone else { return }
        if termination == nil { cshim_pidfd_send_signal(pidfd, signal) }
        kill(-processGroup, signal)
        if let cgroup {
            // One listing for both signalling and remembering.
            remember(cgroup.signalAll(signal))
        }
    }

    /// SIGKILL to every process of the run. An empty cgroup (the usual end: the plugin exited
    /// and left nothing behind) is not written to: `cgroup.kill` waits for the kernel's cgroup
    /// lock, which the work of removing earlier runs' cgroups holds for milliseconds at a time
    /// (strace: 5–13 ms writes while 1,000 runs a second ended).
    public func killAll() {
        guard !isGone else { return }
        killing = true
        if termination == nil {
            // Woken by the signal, the process would preempt the loop on its CPU to run its exit
            // (~0.3 ms each), and the next run's SIGKILL, due a moment later, would wait behind it:
            // as SCHED_BATCH it exits when the scheduler next switches, not at once (loop
            // preemptions by dying plugins in a burst of 200 SIGKILLs: 32-40 -> 5-20). The pid is
            // still ours: the child is not reaped yet.
            _ = cshim_set_batch_policy(pid)
            cshim_pidfd_send_signal(pidfd, SIGKILL)
        }
        kill(-processGroup, SIGKILL)
        if let cgroup, cgroup.isPopulated {
            rememberCgroupMembers()
            cgroup.killAll()
        }
    }

    /// Stops every process of the run where it stands (`OnConditionLost=pause`): the cgroup
    /// freezer, else SIGSTOP to the process group. Returns how it was frozen.
    @discardableResult
    public func freeze() -> FreezeMethod? {
        guard !isGone else { return nil }
        if let cgroup, cgroup.setFrozen(true) { return .cgroup }
        kill(-processGroup, SIGSTOP)
        return .stopSignal
    }

    /// Lets a frozen run go on.
    public func thaw() {
        guard !isGone else { return }
        if let cgroup, cgroup.setFrozen(false) { return }
        kill(-processGroup, SIGCONT)
    }

    /// A lower CPU share while on battery: cgroup `cpu.weight` 20 (of the default 100), else
    /// nice 10 for the process group; back to 100 / nice 0 on AC. (An unprivileged agent cannot
    /// lower nice again; its runs stay at nice 10 until they end.)
    public func setLowPriority(_ low: Bool) {
        guard !isGone else { return }
        if let cgroup, cgroup.setCPUWeight(low ? priority.loweredCPUWeight : priority.cpuWeight ?? 100) { return }
        let nice = low ? priority.loweredNice : priority.nice ?? 0
        setpriority(__priority_which_t(PRIO_PGRP.rawValue), id_t(processGroup), Int32(nice))
    }

    /// The job's own `Nice=`/`CPUWeight=`, which the on-battery lowering starts from and returns to.
    public var priority = RunPriority()

    /// How a run was frozen.
    public enum FreezeMethod: Sendable {
        case cgroup
        case stopSignal
    }

    // MARK: exit

    private func mainProcessExited() {
        var code: Int32 = 0
        var status: Int32 = 0
        guard cshim_pidfd_reap(pidfd, &code, &status) == 1 else { return }
        if let token = pidfdWatch { loop.unwatch(token); pidfdWatch = nil }
        let result: ProcessTermination = code == CSHIM_CLD_EXITED ? .exited(status) : .signaled(status)
        termination = result
        // The child's report, if any, was written before it exited: here now.
        settleHandshake()
        // What the main process left behind is killed when the run's lifecycle says (at once,
        // or at the end of a stop's grace period: DESIGN §5), through `killAll`.
        if handshake.failure == nil { callbacks.onMainExit(result) } else { killAll() }
        checkGone()
    }

    /// Decides whether every process of the run has gone; if not, waits for the kernel to say so
    /// (cgroup.events) or re-checks the process group with a short backoff.
    private func checkGone() {
        guard termination != nil, !isGone else { return }
        reapOrphans()
        let empty: Bool
        if let cgroup {
            empty = !cgroup.isPopulated
        } else {
            empty = kill(-processGroup, 0) != 0 && errno == ESRCH
        }
        if empty {
            finish()
        } else if cgroup == nil, groupCheck == nil {
            // A process group has no "empty" notification: re-check with backoff (1 ms → 100 ms).
            groupCheck = loop.schedule(after: groupCheckDelay) { [unowned self] in
                self.groupCheck = nil
                self.groupCheckDelay = min(self.groupCheckDelay * 2, .milliseconds(100))
                if self.killing { self.killAll() }
                self.checkGone()
            }
        }
    }

    /// The agent is a child subreaper: orphans of this run become its children and are reaped
    /// here, by process group and by the pids seen in the cgroup — never with waitpid(-1).
    private func reapOrphans() {
        _ = cshim_reap_group(processGroup)
        for member in knownCgroupMembers where cshim_reap_pid(member) != 0 {
            knownCgroupMembers.remove(member)
        }
    }

    /// Members still the agent's children but not yet exited once the cgroup is empty: the kernel
    /// takes a process out of its cgroup a moment before it becomes its parent's zombie. Each is
    /// reaped when its pidfd says it has exited, so none waits for a later run's end.
    private func reapWhenExited(_ members: Set<pid_t>) {
        for member in members { _ = ChildExitWatch(pid: member, loop: loop) { _ in } }
    }

    private func rememberCgroupMembers() {
        guard let cgroup else { return }
        remember(cgroup.processes)
    }

    /// Members of the run's cgroup other than its main process, reaped by pid later.
    private func remember(_ members: [pid_t]) {
        for member in members where member != pid { knownCgroupMembers.insert(member) }
    }

    private func finish() {
        isGone = true
        if let token = groupCheck { loop.cancel(token); groupCheck = nil }
        if let token = cgroupWatch { loop.unwatch(token); cgroupWatch = nil }
        // Every writer has gone (or escaped the run, without a cgroup): take what is buffered.
        drain(.stdout, toEnd: true)
        drain(.stderr, toEnd: true)
        closePipe(.stdout)
        closePipe(.stderr)
        reapOrphans()
        reapWhenExited(knownCgroupMembers)
        knownCgroupMembers = []
        if !keepsCgroup { cgroup?.remove() }
        callbacks.onGone()
    }

    // MARK: output

    /// Reads a bounded amount per wakeup so a flooding plugin cannot starve other runs: the
    /// level-triggered loop comes back for the rest.
    private func drain(_ stream: Stream, toEnd: Bool = false) {
        let limit = toEnd ? Int.max : 4
        var reachedEOF = false
        callbacks.onOutput(stream) { emit in
            switch stream {
            case .stdout: reachedEOF = stdoutPipe.read(rounds: limit, emit)
            case .stderr: reachedEOF = stderrPipe.read(rounds: limit, emit)
            }
        }
        if reachedEOF { closePipe(stream) }
    }

    private func closePipe(_ stream: Stream) {
        callbacks.onOutput(stream) { emit in
            switch stream {
            case .stdout:
                if let token = stdoutPipe.token { loop.unwatch(token) }
                stdoutPipe.close { emit($0, false) }
            case .stderr:
                if let token = stderrPipe.token { loop.unwatch(token) }
                stderrPipe.close { emit($0, false) }
            }
        }
    }
}

/// One scratch buffer shared by every pipe read on the loop's thread: memory does not grow with
/// the number of runs.
public final class ReadBuffer {
    let storage: UnsafeMutableRawBufferPointer

    public init(size: Int = 64 * 1024) {
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
    }

    deinit {
        storage.deallocate()
    }
}

/// A non-blocking pipe read into lines.
struct PipeLines {
    var fd: Int32
    var token: WatchToken?
    var splitter = LineSplitter()
    let buffer: ReadBuffer

    init(fd: Int32, buffer: ReadBuffer) {
        self.fd = fd
        self.buffer = buffer
    }

    var truncatedLines: Int { splitter.truncatedLines }

    /// Reads up to `rounds` buffers; returns true at end of file.
    mutating func read(rounds: Int, _ emit: (UnsafeBufferPointer<UInt8>, Bool) -> Void) -> Bool {
        guard fd >= 0 else { return false }
        var round = 0
        while round < rounds {
            let n = Glibc.read(fd, buffer.storage.baseAddress, buffer.storage.count)
            if n > 0 {
                splitter.feedMarkingCuts(UnsafeRawBufferPointer(rebasing: buffer.storage[0..<n]), emit)
                round += 1
            } else if n == 0 {
                return true
            } else if errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return false
    }

    mutating func close(_ emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard fd >= 0 else { return }
        splitter.finish(emit)
        Glibc.close(fd)
        fd = -1
        token = nil
    }
}
