// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentStore
import AgentSystem
import Synchronization

/// Keeps the runs table bounded (``RunRetention``): a pass when the state database opens, and
/// after a run's end when the last pass is `spacing` old. No timer of its own: an idle agent
/// adds no runs, so nothing wakes it for this. Each pass is one transaction on the state
/// writer, never on the loop; a pass that stopped at its bounds is followed by the next at once.
final class RunHistoryPruner {
    private let loop: any EventLooping
    private let stateWriter: StateWriter
    private let log: Logger
    let retention: RunRetention
    /// When the last round of passes started; nil before the first.
    private var lastRound: MonotonicInstant?
    /// A pass is with the writer (the next may follow it).
    private(set) var isPruning = false
    /// Removed in the passes of this round, for its one log line.
    private var removedThisRound = 0

    init(loop: any EventLooping, stateWriter: StateWriter, log: Logger, retention: RunRetention = .standard) {
        self.loop = loop
        self.stateWriter = stateWriter
        self.log = log
        self.retention = retention
    }

    /// The state database has just opened: the history left by earlier agents is trimmed.
    func databaseOpened() {
        startRound()
    }

    /// A run ended (its record is handed to the writer before this).
    func runEnded() {
        if let lastRound, loop.now - lastRound < retention.spacing { return }
        startRound()
    }

    private func startRound() {
        guard !isPruning else { return }
        lastRound = loop.now
        removedThisRound = 0
        runPass(after: nil)
    }

    /// One pass on the writer's thread; what it did is read once the writer has reported it.
    private func runPass(after job: String?) {
        let retention = retention
        let cutoff = retention.cutoff(nowMilliseconds: loop.clock.realtimeMilliseconds)
        let outcome = PassOutcome()
        let handedOver = stateWriter.attempt("the removal of old runs", { database in
            let pass = try RunStore(database: database).prune(retention, cutoff: cutoff, after: job)
            outcome.value.withLock { $0 = pass }
        }, takeBack: {
            // The transaction failed (it may have failed at its commit, after the pass ran).
            outcome.value.withLock { $0 = nil }
        })
        // Not handed over (the state is unwritable) or failed: the next round tries again.
        guard handedOver else { return }
        isPruning = true
        stateWriter.afterHandedOver { [weak self] in
            guard let self else { return }
            self.isPruning = false
            guard let pass = outcome.value.withLock({ $0 }) else { return }
            self.passed(pass)
        }
    }

    private func passed(_ pass: RetentionPass) {
        removedThisRound += pass.removed
        if !pass.finished {
            runPass(after: pass.resumeAfter)
            return
        }
        guard removedThisRound > 0 else { return }
        let days = retention.age.components.seconds / 86_400
        log.info("state database: removed \(removedThisRound) finished run\(removedThisRound == 1 ? "" : "s") "
                 + "started more than \(days) days ago (each job keeps its newest \(retention.keptPerJob))")
    }

    /// The writer's thread fills it in; the loop reads it once the writer has reported.
    private final class PassOutcome: Sendable {
        let value = Mutex<RetentionPass?>(nil)
    }
}
