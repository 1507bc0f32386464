// SPDX-License-Identifier: Apache-2.0
import AgentSystem
import Glibc

/// How the state log reaches the disk: the port under ``AcknowledgementSync``. The real one
/// (``WriterSyncs``) syncs on the state writer's thread and reports through its mailbox; daemon
/// scripts use one whose syncs finish (or fail) when the script says.
protocol StateSyncing: AnyObject {
    /// Where finished syncs are reported (on the loop).
    var onOutcome: (([FileSyncWorker.Outcome]) -> Void)? { get set }
    /// Asks for `database`'s log to be synced, covering request commit `number` and those before.
    func request(_ number: UInt64, database: String)
    /// Syncs `database` now, on the loop (only after a failure, and at the stop).
    func syncNow(_ database: String) -> SystemError?
    /// Ends the sync thread, if any.
    func finish()
}

/// The real sync: a job on the state writer's thread (``SQLiteWriter``), queued after the writes
/// it must cover, reported in its place among their outcomes.
final class WriterSyncs: StateSyncing {
    private let writer: SQLiteWriter
    var onOutcome: (([FileSyncWorker.Outcome]) -> Void)?

    init(writer: SQLiteWriter) {
        self.writer = writer
        writer.onSynced = { [unowned self] outcome in self.onOutcome?([outcome]) }
    }

    func request(_ number: UInt64, database: String) {
        // Syncs are never refused for a full queue; only with no database is there no writer.
        if !writer.submit(.sync(upTo: number)) {
            onOutcome?([FileSyncWorker.Outcome(upTo: number, failure: SystemError(call: "sync", errno: EBADF, path: database))])
        }
    }

    func syncNow(_ database: String) -> SystemError? { FileSyncWorker.syncNow(database) }

    func finish() { writer.finish() }
}
