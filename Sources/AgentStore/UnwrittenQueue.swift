// SPDX-License-Identifier: Apache-2.0
/// Writes that could not be made (disk full, a lock, a read-only file), oldest first, waiting
/// for the state to be writable again. Bounded: beyond `capacity` the oldest is dropped and
/// counted. A write with a key replaces the queued one with the same key (a run's checkpoint is
/// worth keeping only in its latest version), so a chatty run cannot push others out.
public struct UnwrittenQueue {
    public struct Entry {
        /// What it records, for the log (`the end of run r000042`).
        public var label: String
        public var key: String?
        public var write: (Database) throws -> Void
    }

    public let capacity: Int
    public private(set) var entries: [Entry] = []
    /// Entries dropped because the queue was full, since the agent started.
    public private(set) var dropped = 0

    public init(capacity: Int = 1_000) {
        self.capacity = max(1, capacity)
    }

    public var isEmpty: Bool { entries.isEmpty }
    public var count: Int { entries.count }

    /// Queues a write; returns the entry dropped to make room, if any.
    @discardableResult
    public mutating func append(_ label: String, key: String? = nil,
                                _ write: @escaping (Database) throws -> Void) -> Entry? {
        if let key, let index = entries.firstIndex(where: { $0.key == key }) {
            entries.remove(at: index)
        }
        entries.append(Entry(label: label, key: key, write: write))
        guard entries.count > capacity else { return nil }
        dropped += 1
        return entries.removeFirst()
    }

    /// Writes the queued entries in order, each in its own transaction, until one fails with
    /// trouble that may pass (it and the rest stay queued, and that error is returned). An
    /// entry that fails for good (a constraint, a bug) is given up and reported to `abandoned`.
    public mutating func drain(into database: Database,
                               abandoned: (Entry, StoreError) -> Void) -> (written: Int, error: StoreError?) {
        var written = 0
        while let entry = entries.first {
            do {
                try database.transaction { try entry.write(database) }
                written += 1
            } catch let error as StoreError where error.kind.isTransient {
                return (written, error)
            } catch {
                abandoned(entry, error as? StoreError
                    ?? StoreError(operation: entry.label, path: database.path, code: 0, message: "\(error)"))
            }
            entries.removeFirst()
        }
        return (written, nil)
    }
}
