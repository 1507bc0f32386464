// SPDX-License-Identifier: Apache-2.0
/// `Retry=`: how long to wait before the next run after a failed one (exit status non-zero).
///
/// Syntax: `exponential INITIAL CAP` (INITIAL after the first failure, doubling after each
/// further consecutive failure, never more than CAP) or `fixed DELAY`. `none` or an empty value
/// means no retry policy: a failed job simply waits for its next interval, trigger or submission.
public struct RetryPolicy: Hashable, Sendable, CustomStringConvertible {
    public enum Shape: Hashable, Sendable {
        case exponential(initial: Duration, cap: Duration)
        case fixed(Duration)
    }

    public var shape: Shape

    public init(shape: Shape) {
        self.shape = shape
    }

    /// Examples quoted by error messages.
    public static let examples = "exponential 30s 1h, fixed 5min, none"

    /// The delay before the next attempt after `n` consecutive failures (`n` >= 1; smaller
    /// values are treated as 1).
    public func delay(afterFailures n: Int) -> Duration {
        switch shape {
        case .fixed(let delay):
            return delay
        case .exponential(let initial, let cap):
            // Parsed policies have 0 < initial <= cap; hand-made ones are clamped, not trusted.
            guard initial > .zero, initial < cap else { return max(.zero, min(initial, cap)) }
            var delay = initial
            var failures = max(n, 1)
            // Stops once doubling would reach the cap: at most ~128 rounds, never an overflow.
            while failures > 1 {
                if delay >= cap / 2 { return cap }
                delay = delay * 2
                failures -= 1
            }
            return delay
        }
    }

    public var description: String {
        switch shape {
        case .fixed(let delay):
            return "fixed \(TimeSpan.formatWord(delay))"
        case .exponential(let initial, let cap):
            return "exponential \(TimeSpan.formatWord(initial)) \(TimeSpan.formatWord(cap))"
        }
    }

    /// Parses a `Retry=` value: `.success(nil)` for `none`/empty, the policy, or a message
    /// (following `Retry: `) saying what is wrong and what would be valid.
    public static func parse(_ text: String) -> Result<RetryPolicy?, RetryPolicyError> {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        let invalid = RetryPolicyError(
            message: "\(TextBytes.quoted(text)) is not a retry policy (examples: \(examples))")
        guard let shape = words.first else { return .success(nil) }
        func span(_ word: String, _ role: String) -> Result<Duration, RetryPolicyError> {
            guard let value = TimeSpan.parse(word) else {
                return .failure(RetryPolicyError(message: "\(role) \(TextBytes.quoted(word)) "
                    + "is not a time span (examples: \(TimeSpan.examples))"))
            }
            guard value > .zero else {
                return .failure(RetryPolicyError(message: "\(role) must be longer than 0"))
            }
            return .success(value)
        }
        switch TextBytes.asciiLowercased(shape) {
        case "none" where words.count == 1:
            return .success(nil)
        case "fixed":
            guard words.count == 2 else {
                return .failure(RetryPolicyError(message: "fixed takes one delay, "
                    + "e.g. fixed 5min (got \(TextBytes.quoted(text)))"))
            }
            return span(words[1], "delay").map { RetryPolicy(shape: .fixed($0)) }
        case "exponential":
            guard words.count == 3 else {
                return .failure(RetryPolicyError(message: "exponential takes an initial delay "
                    + "and a cap, e.g. exponential 30s 1h (got \(TextBytes.quoted(text)))"))
            }
            let initial: Duration
            switch span(words[1], "initial delay") {
            case .success(let value): initial = value
            case .failure(let error): return .failure(error)
            }
            let cap: Duration
            switch span(words[2], "cap") {
            case .success(let value): cap = value
            case .failure(let error): return .failure(error)
            }
            guard cap >= initial else {
                return .failure(RetryPolicyError(message: "the cap \(TimeSpan.format(cap)) is "
                    + "shorter than the initial delay \(TimeSpan.format(initial)); "
                    + "write exponential \(TimeSpan.formatWord(initial)) \(TimeSpan.formatWord(initial * 60))"))
            }
            return .success(RetryPolicy(shape: .exponential(initial: initial, cap: cap)))
        default:
            return .failure(invalid)
        }
    }
}

/// Why a `Retry=` value is invalid.
public struct RetryPolicyError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
