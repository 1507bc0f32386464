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
    /// Which `Exec=` line of the run: each is a process (and process group) of its own.
    let command: Int
    let trace: Trace
    let events: PluginProcess.Callbacks
    var pid: Int32 { Int32(truncatingIfNeeded: 1000 + run.number + 100 * UInt64(command)) }
    var processGroup: Int32 { pid }
    var cgroupPath: String? { "/sys/fs/cgroup/agentd-runs/run-\(run)" }
    var truncatedLines = 0
    var spawnFailure: SpawnFailure? { nil }
    var limitCounters: LimitCounters { LimitCounters() }

    init(run: RunID, command: Int = 0, trace: Trace, events: PluginProcess.Callbacks) {
        self.run = run
        self.command = command
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
        let process = VirtualProcess(run: id, command: index, trace: trace, events: events)
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

    /// No cgroups here: nothing is left outside the recorded runs.
    func recoverUnrecorded(after recorded: [RecordedRunPlace], highest: UInt64, launchedAny: Bool) -> [(run: RunID, done: String)] {
        []
    }
    func removeCgroups() {}
    func reapStrays(keeping: Set<Int32>) {}
}

/// The writer's thread, virtual: each job handed over is written down, and run with the real
/// SQLite (``StateJobRunner``) at the end of the script's step, or, while held
/// (`writes hold`), when the script says (`writes ok`): the handover and the write's outcome
/// as separate steps. The disk fills on cue.
final class VirtualCommits: StateCommitting {
    let trace: Trace
    var onOutcome: (([StateJobOutcome]) -> Void)?
    var full = false
    var hold = false
    private var runner: StateJobRunner?
    private var pending: [(job: StateJob, label: String?, held: Bool)] = []
    /// A write failed since the last sync: the sync behind it fails too, as on the real thread.
    var failedSinceSync = false
    private var finished = false

    init(trace: Trace) { self.trace = trace }

    /// Jobs handed over and not yet run.
    var waiting: Int { pending.count }

    func use(_ database: Database, mostFrames: Int) { runner = StateJobRunner(database: database, mostFrames: mostFrames) }

    private func diskFull(_ label: String) -> StoreError {
        StoreError(operation: label, path: "STATE/state.db", code: 13, message: "database or disk is full")
    }

    func submit(_ job: StateJob) -> Bool {
        var label: String?
        switch job {
        case .write(_, let name, _, _): label = name
        case .drain(let entries, let syncFirst):
            if syncFirst { trace.emit("sync now") }
            if !entries.isEmpty { label = "\(entries.count) queued records" }
        case .sync, .checkpoint, .checkWAL: break
        }
        // Unless held, the job runs at the end of this step, when the disk is as it is now.
        if let label {
            trace.emit(hold ? "write \(label): handed over" : full ? "write \(label): disk full" : "write \(label)")
        }
        pending.append((job, label, hold))
        if finished { complete() }
        return true
    }

    /// The thread runs what was handed over, in order, and reports (the loop takes it in).
    func complete() {
        while !pending.isEmpty, let runner {
            let batch = pending
            pending = []
            var outcomes: [StateJobOutcome] = []
            for (job, label, held) in batch {
                let fails = full && label != nil
                if fails, let label {
                    failedSinceSync = true
                    switch job {
                    case .write(let id, _, _, _):
                        outcomes.append(.wrote(id: id, error: diskFull(label), walFrames: 0))
                    case .drain(let entries, _):
                        outcomes.append(.drained(written: 0, left: entries, error: diskFull(label), abandoned: [],
                                                 syncFailure: nil, walFrames: 0))
                    default: break
                    }
                } else {
                    if case .drain = job { failedSinceSync = false }
                    outcomes += runner.runAll([job])
                }
                if held, let label { trace.emit(fails ? "write \(label): disk full" : "write \(label): done") }
            }
            onOutcome?(outcomes)
        }
    }

    func spaceProblem(of state: StateDirectory) -> StateProblem? {
        full ? StateProblem(kind: .full, directory: "STATE", detail: "0 KiB free, 256 KiB needed") : nil
    }

    func finish() {
        finished = true
        hold = false
        complete()
    }

    /// The agent was killed: what was handed over and not written is lost with it.
    func drop() { pending = [] }
}

/// Syncs that finish when the script says (or, unless held, at the end of each step). Like the
/// real one, a sync runs after the writes handed over before it, and fails when one of them did.
final class VirtualSyncs: StateSyncing {
    let trace: Trace
    weak var commits: VirtualCommits?
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
    /// It runs only after the writes handed over before it (`asked`: the script said so, and
    /// hears why not).
    func complete(failing: Bool = false, asked: Bool = false) {
        guard requested > synced else { return }
        if let commits, commits.waiting > 0 {
            if asked { trace.emit("sync waits for \(commits.waiting) writes handed over before it") }
            return
        }
        let upTo = requested
        synced = upTo
        if let commits, commits.failedSinceSync {
            commits.failedSinceSync = false
            trace.emit("sync up to commit \(upTo): failed (a write before it failed)")
            onOutcome?([FileSyncWorker.Outcome(upTo: upTo, failure: SystemError(call: "commit", errno: 28))])
            return
        }
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
