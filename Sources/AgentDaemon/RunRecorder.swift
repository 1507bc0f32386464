// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentStore
import AgentSystem

/// Writes what a run leaves in the state database (DESIGN §10): its record at the start and at
/// the end, its title (at once, then at most once a second) and its checkpoint (at most once a
/// second, and at its end). The spacing timers have slack, so the writes of many runs share a
/// wakeup. Every write goes through the state writer: queued (bounded) while the state cannot
/// be written.
final class RunRecorder {
    private let loop: any EventLooping
    private let state: StateDirectory
    private let stateWriter: StateWriter
    /// The live run of an id: a spacing timer of a run that has ended does nothing.
    var live: (RunID) -> ActiveRun? = { _ in nil }
    /// How long a title or checkpoint write waits for the changes after it.
    static let spacing: Duration = .seconds(1)
    /// Checkpoints handed to the state writer and not yet reported written, by identifier: a run
    /// started before its predecessor's last checkpoint is in the database (in the same loop
    /// iteration, as a queued run starts the moment the one before it ends) is handed that one.
    private var checkpointsInFlight: [String: (value: String, handedOver: UInt64)] = [:]
    private var checkpointsHandedOver: UInt64 = 0

    init(loop: any EventLooping, state: StateDirectory, stateWriter: StateWriter) {
        self.loop = loop
        self.state = state
        self.stateWriter = stateWriter
    }

    /// The checkpoint a new run of `identifier` is handed. A checkpoint that cannot be read is
    /// not silently taken for none: the returned problem goes to the log and the run's tail.
    func checkpoint(of identifier: Identifier) -> (value: String?, problem: String?) {
        if let inFlight = checkpointsInFlight[identifier.rawValue] { return (inFlight.value, nil) }
        do {
            return (try state.reading { try $0.checkpoint(identifier: identifier.rawValue) } ?? nil, nil)
        } catch {
            stateWriter.report(error)
            return (nil, "the checkpoint of \(identifier) cannot be read (\(error)): this run starts without one")
        }
    }

    /// The record of a run that just started (or failed to).
    func started(_ run: ActiveRun, process: (any RunProcess)?, bootID: String?) {
        let state = run.state
        let record = StoredRun(runID: state.id.description, identifier: state.identifier.rawValue,
                               kind: run.job.kind, reason: state.reason,
                               startedAt: run.startedAtMilliseconds, title: state.title,
                               processGroup: process?.processGroup, cgroup: process?.cgroupPath, bootID: bootID,
                               job: run.job.identifier.rawValue)
        persist("the start of run \(state.id)") { store in try store.insert(record) }
    }

    /// A later `Exec=` command of a run started in a process group of its own: recorded, so
    /// that recovery without cgroups finds the processes that are live now (DESIGN §10).
    func commandStarted(_ run: ActiveRun, process: any RunProcess) {
        let runID = run.state.id.description
        let group = process.processGroup
        persist("the process group of run \(runID)", key: "process group " + runID) { store in
            try store.recordProcessGroup(group, runID: runID)
        }
    }

    /// Checkpoints are written at most once a second while a run is live, and at its end.
    func checkpointChanged(_ run: ActiveRun) {
        run.checkpointDirty = true
        guard run.checkpointTimer == nil else { return }
        let id = run.state.id
        run.checkpointTimer = loop.schedule(after: Self.spacing, leeway: .quarterSecond) { [unowned self] in
            guard let run = self.live(id) else { return }
            run.checkpointTimer = nil
            self.saveCheckpoint(run)
        }
    }

    /// A new title is written at once, so a run the agent does not see to its end (kill -9)
    /// keeps it; further changes at most once a second (a plugin may print TITLE= in a loop).
    func titleChanged(_ run: ActiveRun) {
        run.titleDirty = true
        guard run.titleTimer == nil else { return }
        saveTitle(run)
        let id = run.state.id
        run.titleTimer = loop.schedule(after: Self.spacing, leeway: .quarterSecond) { [unowned self] in
            guard let run = self.live(id) else { return }
            run.titleTimer = nil
            if run.titleDirty { self.titleChanged(run) }
        }
    }

    /// The run has ended: its spacing timers stop, its last checkpoint and its end are written.
    func ended(_ run: ActiveRun, _ record: StoredRun, success: Bool) {
        if let token = run.checkpointTimer { loop.cancel(token); run.checkpointTimer = nil }
        if let token = run.titleTimer { loop.cancel(token); run.titleTimer = nil }
        saveCheckpoint(run)
        let identifier = run.state.identifier.rawValue
        persist("the end of run \(run.state.id)") { store in
            try store.finish(record)
            try store.recordOutcome(identifier: identifier, at: record.endedAt ?? record.startedAt, success: success)
        }
    }

    private func saveTitle(_ run: ActiveRun) {
        run.titleDirty = false
        let title = run.state.title
        let runID = run.state.id.description
        persist("the title of run \(runID)", key: "title " + runID) { store in
            try store.recordTitle(title, runID: runID)
        }
    }

    private func saveCheckpoint(_ run: ActiveRun) {
        guard run.checkpointDirty, let value = run.state.checkpoint else { return }
        run.checkpointDirty = false
        let identifier = run.state.identifier.rawValue
        // When the checkpoint came (this iteration), even if the write is retried later.
        let at = loop.clock.realtimeMilliseconds
        persist("the checkpoint of \(identifier)", key: "checkpoint " + identifier) { store in
            try store.saveCheckpoint(value, identifier: identifier, at: at)
        }
        checkpointsHandedOver += 1
        let number = checkpointsHandedOver
        checkpointsInFlight[identifier] = (value, number)
        // Once reported written the database has it, and the entry goes (unless a later one
        // replaced it). A write that waits for a full disk is not waited for: until it is
        // written, a new run gets the last checkpoint the database has, as before.
        stateWriter.afterHandedOver { [weak self] in
            if self?.checkpointsInFlight[identifier]?.handedOver == number {
                self?.checkpointsInFlight[identifier] = nil
            }
        }
    }

    /// Writes through the state writer: at once when the state can be written, else queued
    /// (bounded) and written when it can be again. `key` lets a newer write replace a queued one.
    private func persist(_ label: String, key: String? = nil, _ body: @escaping @Sendable (RunStore) throws -> Void) {
        stateWriter.write(label, key: key) { database in try body(RunStore(database: database)) }
    }
}
