// SPDX-License-Identifier: Apache-2.0
/// Whether one per-run limit key is enforced on this machine, decided when the agent starts
/// (`agentctl status`): by what, or why not.
public struct LimitEnforcement: Codable, Sendable, Hashable, CustomStringConvertible {
    /// `TasksMax`, `MemoryMax` or `MemoryHigh`.
    public var key: String
    public var enforced: Bool
    /// What enforces it: `cgroup v2 pids`, `cgroup v1 memory`…
    public var by: String?
    /// Why it is not enforced, and what would make it so.
    public var reason: String?

    public init(key: String, by mechanism: String) {
        self.key = key
        self.enforced = true
        self.by = mechanism
        self.reason = nil
    }

    public init(key: String, notEnforcedBecause reason: String) {
        self.key = key
        self.enforced = false
        self.by = nil
        self.reason = reason
    }

    /// `TasksMax enforced (cgroup v1 pids)`, `MemoryMax not enforced (no memory controller …)`.
    public var description: String {
        enforced ? "\(key) enforced (\(by ?? "cgroup"))" : "\(key) not enforced (\(reason ?? "no controller"))"
    }

    /// Keys that share a verdict, grouped (`MemoryMax and MemoryHigh enforced (cgroup v1
    /// memory)`): the enforced groups first, then one group per reason for the rest.
    public static func summary(_ entries: [LimitEnforcement]) -> (enforced: [String], notEnforced: [String]) {
        var groups: [(entry: LimitEnforcement, keys: [String])] = []
        for entry in entries {
            if let index = groups.firstIndex(where: { $0.entry.enforced == entry.enforced
                && $0.entry.by == entry.by && $0.entry.reason == entry.reason }) {
                groups[index].keys.append(entry.key)
            } else {
                groups.append((entry, [entry.key]))
            }
        }
        func text(_ group: (entry: LimitEnforcement, keys: [String])) -> String {
            var entry = group.entry
            entry.key = group.keys.joined(separator: " and ")
            return entry.description
        }
        return (groups.filter(\.entry.enforced).map(text), groups.filter { !$0.entry.enforced }.map(text))
    }
}
