// SPDX-License-Identifier: Apache-2.0
/// Which events a subscriber wants: both parts must match; an absent part matches everything.
public struct EventFilter: Codable, Sendable, Hashable {
    /// Identifier patterns: `com.example.export` exactly, or `com.example.*` for that identifier
    /// and every one below it; `*` for all. Agent-wide events (conditions, stopping, config
    /// errors, overflow) pass any identifier filter.
    public var identifiers: [String]?
    /// `EventKind` raw values.
    public var kinds: [String]?

    public init(identifiers: [String]? = nil, kinds: [String]? = nil) {
        self.identifiers = identifiers
        self.kinds = kinds
    }

    /// Why the filter cannot be used, or nil.
    public var problem: String? {
        for kind in kinds ?? [] where EventKind(rawValue: kind) == nil {
            return "\"\(kind)\" is not an event kind (\(EventKind.allCases.map(\.rawValue).joined(separator: ", ")))"
        }
        for pattern in identifiers ?? [] {
            let stem = pattern.hasSuffix(".*") ? String(pattern.dropLast(2)) : pattern
            if pattern != "*" && (stem.isEmpty || stem.contains("*")) {
                return "\"\(pattern)\" is not an identifier pattern (an identifier, optionally ending in .*, or *)"
            }
        }
        return nil
    }

    public func matches(kind: EventKind, identifier: String?) -> Bool {
        if let kinds, !kinds.contains(kind.rawValue) { return false }
        guard let identifiers, !kind.isAgentWide else { return true }
        guard let identifier else { return false }
        return identifiers.contains { Self.pattern($0, matches: identifier) }
    }

    static func pattern(_ pattern: String, matches identifier: String) -> Bool {
        if pattern == "*" { return true }
        guard pattern.hasSuffix(".*") else { return pattern == identifier }
        let stem = pattern.dropLast(2)
        return identifier == stem || identifier.hasPrefix(stem + ".")
    }
}
