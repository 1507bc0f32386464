// SPDX-License-Identifier: Apache-2.0
/// A map keyed by identifier that remembers which keys changed since ``takeChanges()``, so the
/// scheduler persists only what an event touched instead of its whole state.
struct TrackedMap<Value: Equatable & Sendable>: Sendable {
    private(set) var values: [Identifier: Value]
    private(set) var changed: Set<Identifier> = []

    init(_ values: [Identifier: Value] = [:]) {
        self.values = values
    }

    subscript(key: Identifier) -> Value? {
        get { values[key] }
        set {
            guard values[key] != newValue else { return }
            values[key] = newValue
            changed.insert(key)
        }
    }

    @discardableResult
    mutating func removeValue(forKey key: Identifier) -> Value? {
        guard let old = values.removeValue(forKey: key) else { return nil }
        changed.insert(key)
        return old
    }

    var keys: Dictionary<Identifier, Value>.Keys { values.keys }
    var count: Int { values.count }

    mutating func takeChanges() -> Set<Identifier> {
        defer { changed = [] }
        return changed
    }
}

/// A set of identifiers that remembers which members came or went since ``takeChanges()``.
struct TrackedSet: Sendable {
    private(set) var members: Set<Identifier>
    private(set) var changed: Set<Identifier> = []

    init(_ members: Set<Identifier> = []) {
        self.members = members
    }

    func contains(_ id: Identifier) -> Bool { members.contains(id) }
    var count: Int { members.count }
    var isEmpty: Bool { members.isEmpty }

    @discardableResult
    mutating func insert(_ id: Identifier) -> (inserted: Bool, memberAfterInsert: Identifier) {
        let result = members.insert(id)
        if result.inserted { changed.insert(id) }
        return result
    }

    @discardableResult
    mutating func remove(_ id: Identifier) -> Identifier? {
        guard let old = members.remove(id) else { return nil }
        changed.insert(id)
        return old
    }

    func filter(_ isIncluded: (Identifier) -> Bool) -> [Identifier] {
        members.filter(isIncluded)
    }

    func sorted() -> [Identifier] { members.sorted() }

    mutating func takeChanges() -> Set<Identifier> {
        defer { changed = [] }
        return changed
    }
}
