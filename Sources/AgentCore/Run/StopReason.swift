// SPDX-License-Identifier: Apache-2.0
/// Why the agent expired a run (DESIGN §7: the text inside `expired(…)`).
public enum ExpiryReason: String, Sendable, Codable, CaseIterable {
    case maxRuntime = "max-runtime"
    case noProgress = "no-progress"
    case power
    case network
    case thermal
    case battery
    case pressure
    /// `agentctl simulate expire`.
    case simulated
    /// The run reached its `TasksMax=` or `MemoryMax=` (the kernel refused a fork at pids.max,
    /// or the OOM killer struck inside it); the limit is named beside, in ``RunLimitHit``.
    case limit
    /// A `Resources=` resource the run needs went away (DESIGN §7). The running-work policy does
    /// not stop runs for it yet: it is the reason a hold on a resource maps to.
    case resource
    /// The machine was about to sleep (logind's `PrepareForSleep`): a discretionary run that
    /// cannot be frozen is stopped before the suspend, within logind's delay (DESIGN §6).
    case sleep
}

/// How a run ended, kept in history for every run (DESIGN §7).
///
/// Its text form is the contract users and scripts see (`agentctl history`, `--json`), so it is
/// also the stored and encoded form: ``description`` and ``init(parsing:)`` are exact inverses,
/// and `Codable` uses that single string.
public enum StopReason: Hashable, Sendable, Codable, CustomStringConvertible {
    case success
    case failure(exitStatus: Int32)
    case expired(ExpiryReason)
    case cancelled
    case crashed(signal: Int32)
    /// The plugin could not be started; the text says why (e.g. `no such file`).
    case spawnFailed(String)
    /// The run was live when the agent stopped; found and recorded when it started again.
    case agentRestart
    /// A `Condition…=` was false right before the launch: nothing was spawned. Not a failure
    /// (no retry, no chain); the text names the condition (`ConditionPathExists=/x`).
    case skipped(String)

    /// Whether a run that ended so starts its job's `OnFailure=` job: a failure, a crash, an
    /// expiry, and a plugin that could not be started (systemd's `OnFailure=` fires for a failed
    /// exec too, and cron mails the shell's "not found"). Not a cancel, a skip or a restart.
    public var chainsOnFailure: Bool {
        switch self {
        case .failure, .crashed, .expired, .spawnFailed: true
        case .success, .cancelled, .agentRestart, .skipped: false
        }
    }

    /// `success`, `failure(exit 3)`, `expired(max-runtime)`, `cancelled`, `crashed(signal 11)`,
    /// `spawn-failed(no such file)`, `agent-restart`, `skipped(ConditionPathExists=/x)`.
    public var description: String {
        switch self {
        case .success: "success"
        case .failure(let status): "failure(exit \(status))"
        case .expired(let reason): "expired(\(reason.rawValue))"
        case .cancelled: "cancelled"
        case .crashed(let signal): "crashed(signal \(signal))"
        case .spawnFailed(let why): "spawn-failed(\(why))"
        case .agentRestart: "agent-restart"
        case .skipped(let condition): "skipped(\(condition))"
        }
    }

    /// The stop reason whose ``description`` is exactly `text`, or nil.
    ///
    /// Numbers must be in canonical form (`exit 3`, not `exit 03` or `exit +3`) so that each
    /// reason has one spelling. A `spawn-failed` reason is taken verbatim between the first `(`
    /// and the last `)`, so any reason text, parentheses included, survives the round trip.
    public init?(parsing text: String) {
        switch text {
        case "success": self = .success; return
        case "cancelled": self = .cancelled; return
        case "agent-restart": self = .agentRestart; return
        default: break
        }
        if let inner = Self.argument(of: text, name: "spawn-failed") {
            self = .spawnFailed(inner)
        } else if let inner = Self.argument(of: text, name: "skipped") {
            self = .skipped(inner)
        } else if let inner = Self.argument(of: text, name: "expired") {
            guard let reason = ExpiryReason(rawValue: inner) else { return nil }
            self = .expired(reason)
        } else if let inner = Self.argument(of: text, name: "failure") {
            guard let status = Self.number(inner, after: "exit ") else { return nil }
            self = .failure(exitStatus: status)
        } else if let inner = Self.argument(of: text, name: "crashed") {
            guard let signal = Self.number(inner, after: "signal ") else { return nil }
            self = .crashed(signal: signal)
        } else {
            return nil
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let reason = StopReason(parsing: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\"\(text)\" is not a stop reason")
        }
        self = reason
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    // Both helpers work on UTF-8 bytes: `String.hasPrefix` compares grapheme clusters, and a
    // reason starting with a combining mark would fuse with the `(` and fail the round trip.

    /// The text between `name(` and a final `)`.
    private static func argument(of text: String, name: String) -> String? {
        let open = name.utf8.count + 1
        let bytes = text.utf8
        guard bytes.count >= open + 1,
              bytes.starts(with: name.utf8),
              bytes.dropFirst(name.utf8.count).first == UInt8(ascii: "("),
              bytes.last == UInt8(ascii: ")")
        else { return nil }
        return String(decoding: bytes.dropFirst(open).dropLast(), as: UTF8.self)
    }

    /// The Int32 after `label`, only in the form `String(n)` produces.
    private static func number(_ text: String, after label: String) -> Int32? {
        guard text.utf8.starts(with: label.utf8) else { return nil }
        let digits = String(decoding: text.utf8.dropFirst(label.utf8.count), as: UTF8.self)
        guard let value = Int32(digits), String(value) == digits else { return nil }
        return value
    }
}
