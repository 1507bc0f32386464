// SPDX-License-Identifier: Apache-2.0
import AgentSystem

/// User lookups for launches, kept for a few seconds: a burst of launches reads the user and
/// group databases once, and a changed user (new groups) is seen soon after.
struct UserCache {
    private var entries: [String: (account: UserAccount, until: MonotonicInstant)] = [:]
    private let lifetime: Duration = .seconds(5)

    mutating func lookup(_ name: String, now: MonotonicInstant) -> UserAccount? {
        if let entry = entries[name], now < entry.until { return entry.account }
        guard let account = UserAccount.lookup(name) else {
            entries[name] = nil
            return nil
        }
        entries[name] = (account, now + lifetime)
        return account
    }
}
