// SPDX-License-Identifier: Apache-2.0
import AgentSystem
import Glibc

/// Acknowledgements that wait for the state log's sync (DESIGN §10: a request is acknowledged
/// only once it is durable). A request's change is handed to the state writer's thread, and its
/// sync queued behind it there (``StateSyncing``: ``WriterSyncs``); the answers wait here until
/// the sync reports, which it does only after the write (a failed write fails the sync that
/// follows it). The loop meanwhile serves deadlines and other clients; requests that commit while a sync runs share the
/// next one. Each connection is answered in order anyway: the server hands a connection its next
/// request only after the answer to the one before.
final class AcknowledgementSync {
    private let syncs: any StateSyncing
    /// Commits whose acknowledgements need a sync, numbered; and how many a sync has covered.
    private(set) var committed: UInt64 = 0
    private var synced: UInt64 = 0
    private var waiting: [(number: UInt64, then: (SystemError?) -> Void)] = []
    /// Each finished sync, before the answers it releases (the state writer records a failure).
    var onOutcome: ((SystemError?) -> Void)?

    init(syncs: any StateSyncing) {
        self.syncs = syncs
        syncs.onOutcome = { [unowned self] outcomes in self.deliver(outcomes) }
    }

    /// A request's change to `database` was committed: a sync is asked for.
    func commit(database: String) {
        committed += 1
        syncs.request(committed, database: database)
    }

    /// Runs `then` once everything committed so far is synced: at once when it is, with the
    /// failure when the sync failed.
    func afterSync(_ then: @escaping (SystemError?) -> Void) {
        if synced >= committed {
            then(nil)
        } else {
            waiting.append((committed, then))
        }
    }

    /// At the agent's stop (the loop no longer runs): the thread ends, and what still waits is
    /// answered after one more sync here.
    func finish(database: String?) {
        syncs.finish()
        synced = committed
        guard !waiting.isEmpty else { return }
        let failure = database.map { syncs.syncNow($0) }
            ?? SystemError(call: "sync", errno: EBADF, path: "state.db (closed before its sync)")
        let released = waiting
        waiting = []
        for entry in released { entry.then(failure) }
    }

    private func deliver(_ outcomes: [FileSyncWorker.Outcome]) {
        for outcome in outcomes {
            synced = max(synced, outcome.upTo)
            onOutcome?(outcome.failure)
            let count = waiting.prefix { $0.number <= outcome.upTo }.count
            let released = waiting.prefix(count)
            waiting.removeFirst(count)
            for entry in released { entry.then(outcome.failure) }
        }
    }
}
