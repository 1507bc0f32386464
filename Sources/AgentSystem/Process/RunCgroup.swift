// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Glibc

/// The cgroup of one run: created before the spawn (the child is cloned into it, or moves itself
/// there before execve, so not even the plugin's first fork escapes), signalled and killed as a
/// whole, and removed once empty.
public final class RunCgroup {
    public let path: String
    /// The directory, which the child is cloned into (`CLONE_INTO_CGROUP`).
    public let directoryFD: Int32
    /// `cgroup.events`, watched for `populated 0` (the kernel signals changes as EPOLLPRI).
    public let eventsFD: Int32
    /// The limit counters as they were when the cgroup was removed (they go with it).
    private var countersAtRemoval: LimitCounters?
    /// Removes the directory off the loop, where there is a worker.
    private let remover: RunCgroupWorker?
    /// The controllers enabled for it (`pids`, `memory`): only their `.events` files exist.
    private let controllers: Set<String>
    /// `cgroup.procs` for reading, opened beside `directoryFD` at the first listing (an expiring
    /// run is listed at SIGTERM, SIGCONT and SIGKILL): no listing walks the path, so none waits
    /// for the kernfs lock that the worker's mkdir/rmdir of other runs' cgroups holds. -1 until
    /// then.
    private var membersFD: Int32 = -1

    private init(path: String, directoryFD: Int32, eventsFD: Int32, remover: RunCgroupWorker?,
                 controllers: Set<String>) {
        self.path = path
        self.directoryFD = directoryFD
        self.eventsFD = eventsFD
        self.remover = remover
        self.controllers = controllers
    }

    deinit {
        close(directoryFD)
        close(eventsFD)
        if membersFD >= 0 { close(membersFD) }
    }

    /// Creates `parent/name`, or opens it where the ``RunCgroupWorker`` made it ahead (`made`:
    /// no `mkdir` then, which would wait for the parent directory's lock, held by the worker's
    /// `mkdir`s while they wait for the kernel's cgroup lock). Fails when the hierarchy is not
    /// writable here.
    /// `controllers`: those enabled for the runs' cgroups (``LimitControllers/unified``), whose
    /// counters are read at the run's end.
    public static func create(parent: String, name: String, made: Bool = false,
                              remover: RunCgroupWorker? = nil,
                              controllers: Set<String> = ["pids", "memory"]) throws(SystemError) -> RunCgroup {
        let path = parent + "/" + name
        if !made && mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw SystemError.last("mkdir", path: path)
        }
        let directory = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw SystemError.last("open", path: path) }
        let events = openat(directory, "cgroup.events", O_RDONLY | O_CLOEXEC)
        guard events >= 0 else {
            let saved = errno
            close(directory)
            throw SystemError(call: "open", errno: saved, path: path + "/cgroup.events")
        }
        return RunCgroup(path: path, directoryFD: directory, eventsFD: events, remover: remover, controllers: controllers)
    }

    /// Whether any process is still in the cgroup (`populated 1` in cgroup.events).
    public var isPopulated: Bool { CgroupFiles.isPopulated(eventsFD: eventsFD) }

    /// The pids in the cgroup now.
    public var processes: [pid_t] {
        if membersFD < 0 { membersFD = openat(directoryFD, "cgroup.procs", O_RDONLY | O_CLOEXEC) }
        guard membersFD >= 0, let text = SmallFile.reread(membersFD, limit: 1 << 20) else { return [] }
        return CgroupFiles.pids(in: text)
    }

    /// Sends `signal` to every process in the cgroup (SIGTERM reaches setsid'd grandchildren too);
    /// returns the processes signalled.
    @discardableResult
    public func signalAll(_ signal: Int32) -> [pid_t] {
        let members = processes
        for pid in members { kill(pid, signal) }
        return members
    }

    /// SIGKILL to every process in the cgroup and its descendants, atomically (cgroup.kill, 5.14+);
    /// falls back to freezing it and killing the listed pids.
    public func killAll() {
        CgroupFiles.killAll(path)
    }

    /// Freezes or thaws the whole cgroup (cgroup.freeze).
    @discardableResult
    public func setFrozen(_ frozen: Bool) -> Bool {
        writeControlFile(path + "/cgroup.freeze", frozen ? "1" : "0") == 0
    }

    /// Sets `cpu.weight` (1…10000, default 100); false where the cpu controller is not enabled
    /// for the run's cgroup (the caller falls back to nice).
    @discardableResult
    public func setCPUWeight(_ weight: Int) -> Bool {
        writeControlFile(path + "/cpu.weight", String(weight)) == 0
    }

    /// Writes the run's `pids.max`, `memory.max` and `memory.high`, for the `controllers`
    /// enabled for it (an unset memory limit keeps the kernel's default, `max`).
    public func setLimits(_ limits: RunLimits, controllers: Set<String>) throws(SystemError) {
        var writes: [(String, String)] = []
        if controllers.contains("pids") { writes.append(("pids.max", limits.tasksMax.map(String.init) ?? "max")) }
        if controllers.contains("memory") {
            if let high = limits.memoryHigh { writes.append(("memory.high", String(high.bytes))) }
            if let max = limits.memoryMax { writes.append(("memory.max", String(max.bytes))) }
        }
        for (file, value) in writes {
            let rc = writeControlFile(path + "/" + file, value)
            if rc != 0 { throw SystemError(call: "write \(file)", errno: rc, path: path) }
        }
    }

    /// How often the kernel enforced the run's limits: read at the run's end, from the files
    /// while the cgroup exists and as they were at its removal afterwards.
    public var limitCounters: LimitCounters {
        if let countersAtRemoval { return countersAtRemoval }
        // Only the files there are: each open walks the cgroup file system, whose lock the
        // worker's rmdir of ended runs' cgroups holds for writing — on a hybrid host, where the
        // unified cgroup has no controllers, two failed lookups per run end.
        let pids = controllers.contains("pids") ? SmallFile.read(path + "/pids.events") ?? "" : ""
        let memory = controllers.contains("memory") ? SmallFile.read(path + "/memory.events") ?? "" : ""
        return LimitCounters(refusedForks: LimitCounters.value(of: "max", in: pids),
                             memoryMaxReached: LimitCounters.value(of: "max", in: memory),
                             oomKills: LimitCounters.value(of: "oom_kill", in: memory))
    }

    /// Removes the (empty) cgroup directory, keeping its limit counters: through the worker
    /// where there is one (the loop does not wait for the kernel's cgroup lock), else here.
    @discardableResult
    public func remove() -> Bool {
        guard countersAtRemoval == nil else { return true }
        let counters = limitCounters
        if let remover {
            remover.remove([CgroupRemoval(path: path, killingLeftovers: false)])
        } else {
            guard rmdir(path) == 0 else { return false }
        }
        countersAtRemoval = counters
        return true
    }
}
