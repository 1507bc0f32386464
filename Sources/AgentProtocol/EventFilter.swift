// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// Which events a subscriber wants: both parts must match; an absent part matches everything.
public struct EventFilter: Codable, Sendable, Hashable {
    /// Identifier patterns: `com.example.export` exactly, or `com.example.*` for that identifier
    /// and every one below it; `*` for all. Agent-wide events (conditions, stopping, config
    /// errors, overflow) pass any identifier filter.
    public var identifiers: [String]?
    /// `EventKind` raw values.
    public var kinds: [String]?
    /// Identifiers named exactly (no patterns), usually jobs': events whose identifier is one of
    /// them, and run events whose run is of one of these jobs — a job's submissions under
    /// dynamic identifiers below it, but not the runs of another job registered below it.
    /// Combined with `identifiers`, both must match. Agent-wide events pass it.
    public var jobs: [String]?

    public init(identifiers: [String]? = nil, kinds: [String]? = nil, jobs: [String]? = nil) {
        self.identifiers = identifiers
        self.kinds = kinds
        self.jobs = jobs
    }

    /// Why the filter cannot be used, or nil.
    public var problem: String? {
        for kind in kinds ?? [] where EventKind(rawValue: kind) == nil {
            return "\"\(kind)\" is not an event kind (\(EventKind.allCases.map(\.rawValue).joined(separator: ", ")))"
        }
        for job in jobs ?? [] {
            if let why = Identifier.problem(with: job) {
                return "\(Self.shown(job)) is not an identifier (\"jobs\" names identifiers exactly, without patterns): \(why)"
            }
        }
        for pattern in identifiers ?? [] where pattern != "*" {
            let stem = pattern.hasSuffix(".*") ? String(pattern.dropLast(2)) : pattern
            if let why = Identifier.problem(with: stem) {
                return "\(Self.shown(pattern)) is not an identifier pattern (an identifier, optionally "
                    + "ending in .*, or *): \(why)"
            }
        }
        return nil
    }

    /// A pattern quoted for an error: control bytes as `\xNN`, at most 80 bytes of it.
    public static func shown(_ pattern: String) -> String {
        var text = ""
        for byte in pattern.utf8.prefix(80) {
            if byte < 0x20 || byte >= 0x7F || byte == 0x22 || byte == 0x5C {
                let hex = String(byte, radix: 16, uppercase: true)
                text += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            } else {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return "\"" + text + (pattern.utf8.count > 80 ? "…" : "") + "\""
    }

    /// `job`: the job of a run event's run; nil for other events.
    public func matches(kind: EventKind, identifier: String?, job: String? = nil) -> Bool {
        if let kinds, !kinds.contains(kind.rawValue) { return false }
        if kind.isOptIn, kinds == nil { return false }
        guard !kind.isAgentWide else { return true }
        if let jobs, !(identifier.map(jobs.contains) ?? false), !(job.map(jobs.contains) ?? false) { return false }
        guard let identifiers else { return true }
        guard let identifier else { return false }
        return identifiers.contains { Self.pattern($0, matches: identifier) }
    }

    /// The filter made ready to match: what it costs per event depends on the identifier's
    /// length, never on how many patterns the subscriber sent (10,000 patterns once made every
    /// event cost milliseconds of the loop).
    public func matcher() -> Matcher { Matcher(self) }

    public struct Matcher: Sendable {
        private let kinds: Set<EventKind>?
        private let everyIdentifier: Bool
        private let exact: Set<String>
        /// Stems of `stem.*` patterns: the identifier itself or any of its dot-prefixes.
        private let stems: Set<String>
        private let jobs: Set<String>?

        init(_ filter: EventFilter) {
            kinds = filter.kinds.map { Set($0.compactMap(EventKind.init(rawValue:))) }
            jobs = filter.jobs.map(Set.init)
            let patterns = filter.identifiers
            everyIdentifier = patterns == nil || patterns?.contains("*") == true
            exact = Set((patterns ?? []).filter { !$0.hasSuffix(".*") })
            stems = Set((patterns ?? []).filter { $0.hasSuffix(".*") }.map { String($0.dropLast(2)) })
        }

        /// Whether it names an opt-in kind (`run-output`): the bus collects output lines only
        /// while such a subscriber is there.
        public var wantsOutput: Bool { kinds?.contains(.runOutput) == true }

        /// `job`: the job of a run event's run; nil for other events.
        public func matches(kind: EventKind, identifier: String?, job: String? = nil) -> Bool {
            if let kinds, !kinds.contains(kind) { return false }
            if kind.isOptIn, kinds == nil { return false }
            if kind.isAgentWide { return true }
            if let jobs, !(identifier.map(jobs.contains) ?? false), !(job.map(jobs.contains) ?? false) { return false }
            if everyIdentifier { return true }
            guard let identifier else { return false }
            if exact.contains(identifier) || stems.contains(identifier) { return true }
            guard !stems.isEmpty else { return false }
            var found = false
            Identifier(rawValue: identifier)?.forEachDotPrefix { prefix in
                if !found, stems.contains(String(prefix.dropLast())) { found = true }
            }
            return found
        }
    }

    static func pattern(_ pattern: String, matches identifier: String) -> Bool {
        if pattern == "*" { return true }
        guard pattern.hasSuffix(".*") else { return pattern == identifier }
        let stem = pattern.dropLast(2)
        return identifier == stem || identifier.hasPrefix(stem + ".")
    }
}
