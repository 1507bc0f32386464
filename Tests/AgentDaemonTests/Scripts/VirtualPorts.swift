// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import AgentStore
@testable import AgentDaemon
import AgentSystem

/// What the daemon did, in order: every call through a port and every answer.
final class Trace {
    var lines: [String] = []
    func emit(_ line: String) { lines.append(line) }
}

/// A run's processes in a script: each call is written down, nothing is signalled.
final class VirtualProcess: RunProcess {
    let run: RunID
    let trace: Trace
    let events: PluginProcess.Callbacks
    var pid: Int32 { Int32(truncatingIfNeeded: 1000 + run.number) }
    var processGroup: Int32 { pid }
    var cgroupPath: String? { "/sys/fs/cgroup/agentd-runs/run-\(run)" }
    var truncatedLines = 0
    var spawnFailure: SpawnFailure? { nil }
    var limitCounters: LimitCounters { LimitCounters() }

    init(run: RunID, trace: Trace, events: PluginProcess.Callbacks) {
        self.run = run
        self.trace = trace
        self.events = events
    }

    func signalAll(_ signal: Int32) { trace.emit("signal \(run) \(signalName(signal))") }
    func killAll() { trace.emit("kill \(run) SIGKILL (cgroup.kill)") }
    func freeze() -> PluginProcess.FreezeMethod? {
        trace.emit("freeze \(run) (cgroup.freeze)")
        return .cgroup
    }
    func thaw() { trace.emit("thaw \(run)") }
    func setLowPriority(_ low: Bool) { trace.emit("cpu-weight \(run) \(low ? "lowered" : "restored")") }
}

func signalName(_ signal: Int32) -> String {
    switch signal {
    case 15: "SIGTERM"
    case 18: "SIGCONT"
    case 9: "SIGKILL"
    case 19: "SIGSTOP"
    default: "signal \(signal)"
    }
}

/// Starts nothing: each spawn is written down and its process is a ``VirtualProcess``.
final class VirtualLauncher: RunLaunching {
    let trace: Trace
    var processes: [RunID: VirtualProcess] = [:]
    /// Every run the launcher was asked to start, in order.
    var spawned: [RunID] = []
    /// Jobs whose plugin is refused (as an unsafe or missing plugin is).
    var refused: Set<String> = []
    let bootID: String? = "boot-1"
    var limitEnforcement: [LimitEnforcement] { [] }

    init(trace: Trace) { self.trace = trace }

    func start(_ run: ActiveRun, arguments: [String],
               events: PluginProcess.Callbacks) -> Result<any RunProcess, LaunchProblem> {
        let id = run.state.id
        spawned.append(id)
        let commands = run.job.commands, index = run.state.lifecycle.command
        let argv = ((commands.indices.contains(index) ? commands[index].argv : run.job.exec) + arguments).joined(separator: " ")
        if refused.contains(run.job.identifier.rawValue) {
            trace.emit("spawn \(id) \(argv): refused")
            return .failure(LaunchProblem("unsafe: \(run.job.exec.first ?? "") is writable by others"))
        }
        let checkpoint = run.state.checkpointGiven.map { " AGENTD_CHECKPOINT=\($0)" } ?? ""
        trace.emit("spawn \(id) \(argv) (cgroup run-\(id))\(checkpoint)")
        let process = VirtualProcess(run: id, trace: trace, events: events)
        processes[id] = process
        return .success(process)
    }

    func problem(of failure: SpawnFailure, job: JobDefinition) -> LaunchProblem { LaunchProblem(failure.description) }
    func limitHits(_ run: ActiveRun) -> [RunLimitHit] { [] }
    func releaseLimits(_ run: ActiveRun) {}

    func recover(_ place: RecordedRunPlace) -> String {
        trace.emit("recover run \(place.runID) of \(place.identifier): kill cgroup \(place.cgroup ?? "none")")
        return "killed through its cgroup"
    }

    func removeCgroups() {}
    func reapStrays(keeping: Set<Int32>) {}
}

/// The real SQLite transactions, written down, and a disk that fills on cue.
final class VirtualCommits: StateCommitting {
    let trace: Trace
    private let real = SQLiteCommits()
    var full = false

    init(trace: Trace) { self.trace = trace }

    private func diskFull(_ label: String, _ path: String) -> StoreError {
        StoreError(operation: label, path: path, code: 13, message: "database or disk is full")
    }

    func commit(_ database: Database, durable: Bool, label: String, _ body: (Database) throws -> Void) throws {
        if full {
            trace.emit("write \(label): disk full")
            throw diskFull(label, database.path)
        }
        trace.emit("write \(label)")
        try real.commit(database, durable: durable, label: label, body)
    }

    func drain(_ queue: inout UnwrittenQueue, into database: Database,
               abandoned: (UnwrittenQueue.Entry, StoreError) -> Void) -> (written: Int, error: StoreError?) {
        if full {
            trace.emit("write \(queue.count) queued records: disk full")
            return (0, diskFull("queued records", database.path))
        }
        guard !queue.isEmpty else { return (0, nil) }
        trace.emit("write \(queue.count) queued records")
        return real.drain(&queue, into: database, abandoned: abandoned)
    }

    func spaceProblem(of state: StateDirectory) -> StateProblem? {
        full ? StateProblem(kind: .full, directory: "STATE", detail: "0 KiB free, 256 KiB needed") : nil
    }
}

/// Syncs that finish when the script says (or, unless held, at the end of each step).
final class VirtualSyncs: StateSyncing {
    let trace: Trace
    var onOutcome: (([FileSyncWorker.Outcome]) -> Void)?
    private(set) var requested: UInt64 = 0
    private(set) var synced: UInt64 = 0
    var hold = false

    init(trace: Trace) { self.trace = trace }

    func request(_ number: UInt64, database: String) {
        requested = max(requested, number)
        trace.emit("sync requested (commit \(number))")
    }

    /// The sync thread reports: everything requested so far is on disk, or the sync failed.
    func complete(failing: Bool = false) {
        guard requested > synced else { return }
        let upTo = requested
        synced = upTo
        trace.emit(failing ? "sync up to commit \(upTo): failed (ENOSPC)" : "sync up to commit \(upTo): done")
        onOutcome?([FileSyncWorker.Outcome(upTo: upTo, failure: failing ? SystemError(call: "fdatasync", errno: 28) : nil)])
    }

    func syncNow(_ database: String) -> SystemError? {
        trace.emit("sync now")
        return nil
    }

    func finish() {}
}

/// A subscriber that reads every line, up to a bounded backlog the script drains.
final class VirtualSubscriber: EventStreamClient {
    let id: UInt64
    let name: String
    let trace: Trace
    var isStreaming = false
    var onClose: ((ClientConnection.CloseReason) -> Void)?
    /// Lines sent and not yet read; the real connection bounds them at 128 KiB.
    var backlog = 0
    static let backlogLimit = 4
    var reading = true
    var dropped = false

    init(id: UInt64, name: String, trace: Trace) {
        self.id = id
        self.name = name
        self.trace = trace
    }

    func stream(_ line: [UInt8], lastLine: () -> [UInt8]) -> Bool {
        guard !dropped else { return false }
        if !reading, backlog >= Self.backlogLimit {
            dropped = true
            trace.emit("event \(name): \(EventLine.summary(lastLine())) and dropped")
            return false
        }
        if reading {
            trace.emit("event \(name): \(EventLine.summary(line))")
        } else {
            backlog += 1
        }
        return true
    }
}

/// An event line without its time, for a script's output.
enum EventLine {
    static func summary(_ bytes: [UInt8]) -> String {
        var text = String(decoding: bytes, as: UTF8.self)
        if let start = text.range(of: "\"time\":") {
            let rest = text[start.upperBound...]
            let end = rest.firstIndex { $0 == "," || $0 == "}" } ?? rest.endIndex
            text.removeSubrange(start.lowerBound..<(rest[end] == "," ? rest.index(after: end) : end))
        }
        return text
    }
}

/// Jobs from the script's `jobs` command, without a config directory.
final class VirtualCatalogue: JobCatalogue {
    var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
    var watchStatus: ConfigWatchStatus? { nil }
    var jobs: [Identifier: JobDefinition] = [:]
    var settings: AgentSettings { AgentSettings() }
    var registeredDefinitions: [JobDefinition] { jobs.values.sorted { $0.identifier < $1.identifier } }
    func registeredDefinition(_ id: Identifier) -> JobDefinition? { jobs[id] }
}
