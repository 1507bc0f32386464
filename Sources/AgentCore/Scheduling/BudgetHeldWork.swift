// SPDX-License-Identifier: Apache-2.0
/// Due discretionary jobs whose manifest's daily budget is spent, by the time they became due
/// (most overdue first), with an index by account: when one account refills (midnight, or a
/// larger `DailyBudget=` on reload) only its jobs go back to the ready heap, in O(its jobs),
/// while the other manifests' work runs on.
struct BudgetHeldWork: Sendable {
    private(set) var heap = DeadlineQueue<Identifier, TimedKey>()
    private var byAccount: [String: Set<Identifier>] = [:]
    private var accountOf: [Identifier: String] = [:]

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }
    /// Accounts some held job waits on.
    var accounts: Dictionary<String, Set<Identifier>>.Keys { byAccount.keys }

    func contains(_ id: Identifier) -> Bool { heap.contains(id) }
    func account(of id: Identifier) -> String? { accountOf[id] }

    mutating func set(_ id: Identifier, _ key: TimedKey, account: String) {
        _ = remove(id)
        heap.set(id, key)
        byAccount[account, default: []].insert(id)
        accountOf[id] = account
    }

    /// Holds many jobs on one account at once (an account's budget just ran out).
    mutating func hold(_ entries: [(key: Identifier, priority: TimedKey)], account: String) {
        for (id, _) in entries where heap.contains(id) { remove(id) }
        heap.setAll(entries)
        byAccount[account, default: []].formUnion(entries.map(\.key))
        for (id, _) in entries { accountOf[id] = account }
    }

    @discardableResult
    mutating func remove(_ id: Identifier) -> TimedKey? {
        guard let key = heap.remove(id) else { return nil }
        if let account = accountOf.removeValue(forKey: id) {
            byAccount[account]?.remove(id)
            if byAccount[account]?.isEmpty == true { byAccount[account] = nil }
        }
        return key
    }

    mutating func popMin() -> (key: Identifier, priority: TimedKey)? {
        guard let top = heap.min else { return nil }
        remove(top.key)
        return top
    }

    /// Takes every job held on `account` out, with its key.
    mutating func take(_ account: String) -> [(Identifier, TimedKey)] {
        guard let ids = byAccount[account] else { return [] }
        return ids.sorted().compactMap { id in remove(id).map { (id, $0) } }
    }

    /// Takes every held job out, most overdue first.
    mutating func takeAll() -> [(key: Identifier, priority: TimedKey)] {
        byAccount = [:]
        accountOf = [:]
        return heap.popAll { _ in true }
    }

    var entries: [(key: Identifier, priority: TimedKey)] { heap.entries }
    func smallest(_ k: Int) -> [(key: Identifier, priority: TimedKey)] { heap.smallest(k) }
}
