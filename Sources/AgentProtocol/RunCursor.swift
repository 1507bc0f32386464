// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// Where a page of `history` or `logs` ends (the answer's `nextCursor`): the last run on the
/// page and when it started, written `r000031@1764576060000` (Unix milliseconds). The start
/// places the next page even when that run was pruned in between (each job keeps only its newest
/// runs), which a run id alone could not. A bare run id (`r000031`) is read too; the agent then
/// looks the run up to place it.
public struct RunCursor: Sendable, Hashable, CustomStringConvertible {
    public let runID: RunID
    /// Unix milliseconds; nil when the cursor was a bare run id.
    public let startedAt: Int64?

    public init(runID: RunID, startedAt: Int64?) {
        self.runID = runID
        self.startedAt = startedAt
    }

    /// The cursor `text` spells, or nil: a run id, optionally `@` and a start in milliseconds
    /// (digits only, as written here).
    public init?(parsing text: String) {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard let run = RunID(parsing: String(parts[0])) else { return nil }
        guard parts.count == 2 else {
            self.init(runID: run, startedAt: nil)
            return
        }
        let digits = parts[1]
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let started = Int64(digits), String(started) == digits else { return nil }
        self.init(runID: run, startedAt: started)
    }

    public var description: String {
        startedAt.map { "\(runID)@\($0)" } ?? runID.description
    }

    /// What a malformed cursor is told, naming the verb.
    static func problem(_ verb: String, _ text: String) -> String {
        "\(verb): \"cursor\" must be the nextCursor of the previous answer, as it was sent (r000031@1764576060000, or a run id); got \(EventFilter.shown(text))"
    }
}

extension RunCursor: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let cursor = RunCursor(parsing: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a run cursor: \(text.prefix(80))")
        }
        self = cursor
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
