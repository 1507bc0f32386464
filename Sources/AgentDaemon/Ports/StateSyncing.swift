// SPDX-License-Identifier: Apache-2.0
import AgentSystem

/// How the state log reaches the disk: the port under ``AcknowledgementSync``. The real one
/// (``FileSyncPort``) syncs on ``FileSyncWorker``'s thread and reports through a mailbox; daemon
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

/// The real sync: a thread that `fdatasync`s the WAL, and a mailbox back to the loop.
final class FileSyncPort: StateSyncing {
    private let loop: EventLoop
    private var worker: FileSyncWorker?
    private var mailbox: Mailbox<FileSyncWorker.Outcome>?
    var onOutcome: (([FileSyncWorker.Outcome]) -> Void)?

    init(loop: EventLoop) {
        self.loop = loop
    }

    func request(_ number: UInt64, database: String) {
        guard let worker = worker(for: database) else {
            // No mailbox (eventfd exhausted): sync here, on the loop.
            onOutcome?([FileSyncWorker.Outcome(upTo: number, failure: FileSyncWorker.syncNow(database))])
            return
        }
        worker.request(number)
    }

    func syncNow(_ database: String) -> SystemError? { FileSyncWorker.syncNow(database) }

    func finish() {
        worker?.finish()
        mailbox?.close()
        worker = nil
        mailbox = nil
    }

    private func worker(for database: String) -> FileSyncWorker? {
        if let worker, worker.database == database { return worker }
        worker?.finish()
        if mailbox == nil {
            mailbox = try? Mailbox<FileSyncWorker.Outcome>(loop: loop) { [unowned self] outcomes in
                self.onOutcome?(outcomes)
            }
        }
        guard let mailbox else { return nil }
        let made = FileSyncWorker(database: database, report: mailbox.sender)
        worker = made
        return made
    }
}
