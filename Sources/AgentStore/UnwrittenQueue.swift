// SPDX-License-Identifier: Apache-2.0
/// Writes that could not be made (disk full, a lock, a read-only file), oldest first, waiting
/// for the state to be writable again. Bounded: beyond `capacity` the oldest is dropped and
/// counted. A write with a key replaces the queued one with the same key (a run's checkpoint is
/// worth keeping only in its latest version), so a chatty run cannot push others out.
public struct UnwrittenQueue: Sendable {
    public struct Entry: Sendable {
        /// What it records, for the log (`the end of run r000042`).
        public var label: String
        public var key: String?
        /// When it was made, among all writes: a write handed to the writer's thread that comes
        /// back unwritten goes back in its place (`putBack`), before writes made after it.
        public var sequence: UInt64
        public var write: @Sendable (Database) throws -> Void

        public init(label: String, key: String?, sequence: UInt64, write: @escaping @Sendable (Database) throws -> Void) {
            self.label = label
            self.key = key
            self.sequence = sequence
            self.write = write
        }
    }

    public let capacity: Int
    public private(set) var entries: [Entry] = []
    /// Entries dropped because the queue was full, since the agent started.
    public private(set) var dropped = 0

    public init(capacity: Int = 1_000) {
        self.capacity = max(1, capacity)
    }

    /// A queue of `entries` in their order: what the writer's thread drains.
    public init(entries: [Entry]) {
        capacity = max(1, entries.count)
        self.entries = entries
    }

    public var isEmpty: Bool { entries.isEmpty }
    public var count: Int { entries.count }

    /// Queues a write; returns the entry dropped to make room, if any.
    @discardableResult
    public mutating func append(_ label: String, key: String? = nil, sequence: UInt64 = 0,
                                _ write: @escaping @Sendable (Database) throws -> Void) -> Entry? {
        putBack(Entry(label: label, key: key, sequence: sequence, write: write))
    }

    /// Queues `entry` before every entry made after it (a write that came back unwritten from
    /// the writer's thread); a queued write with the same key that is newer wins. Returns the
    /// entry dropped to make room, if any.
    @discardableResult
    public mutating func putBack(_ entry: Entry) -> Entry? {
        if let key = entry.key, let index = entries.firstIndex(where: { $0.key == key }) {
            if entries[index].sequence > entry.sequence { return nil }
            entries.remove(at: index)
        }
        let index = entries.lastIndex(where: { $0.sequence <= entry.sequence }).map { $0 + 1 } ?? 0
        entries.insert(entry, at: index)
        guard entries.count > capacity else { return nil }
        dropped += 1
        return entries.removeFirst()
    }

    /// Empties the queue, handing its entries over in order (to the writer's thread).
    public mutating func takeAll() -> [Entry] {
        defer { entries = [] }
        return entries
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
