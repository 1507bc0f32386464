// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

struct TimeSpanTests {
    @Test(arguments: [
        ("30s", Duration.seconds(30)), ("5min", .seconds(300)), ("2h", .seconds(7200)),
        ("1d", .seconds(86_400)), ("1h30min", .seconds(5400)), ("1h 30min", .seconds(5400)),
        ("500ms", .milliseconds(500)), ("1w", .seconds(604_800)), ("0", .zero), ("90", .seconds(90)),
        ("1.5h", .seconds(5400)), ("5 min", .seconds(300)), ("250us", .microseconds(250)),
        ("10sec", .seconds(10)), ("3 hours", .seconds(10_800)), ("2 days", .seconds(172_800)),
        ("1M", .seconds(2_629_800)), ("1y", .seconds(31_557_600)), ("5m", .seconds(300)),
        ("7µs", .microseconds(7)), ("7μs", .microseconds(7)), (" 30s ", .seconds(30)),
        ("1h 30", .seconds(3630)), ("0.5s", .milliseconds(500)),
    ])
    func parsesSystemdTimeSpans(_ text: String, _ expected: Duration) {
        #expect(TimeSpan.parse(text) == expected)
    }

    @Test(arguments: [
        "1x", "-5s", "5 parsecs", "", "   ", "5mins", "abc", "1.h", "+5s", "s", "1h-1m",
        "99999999999999999999s", "9999999999999y", ".5s", "infinity", "none", "5 min 3x",
    ])
    func rejectsWhatIsNotATimeSpan(_ text: String) {
        #expect(TimeSpan.parse(text) == nil)
    }

    @Test func formatsSpansAsSystemdPrintsThem() {
        #expect(TimeSpan.format(.seconds(5400)) == "1h 30min")
        #expect(TimeSpan.format(.zero) == "0")
        #expect(TimeSpan.format(.milliseconds(500)) == "500ms")
        #expect(TimeSpan.format(.seconds(86_400 + 1)) == "1d 1s")
        #expect(TimeSpan.format(.seconds(604_800)) == "1w")
    }
}

struct BooleanValueTests {
    @Test(arguments: ["yes", "YES", "true", "True", "on", "1", "y", "t"])
    func acceptsTrueSpellingsCaseInsensitively(_ text: String) {
        #expect(BooleanValue.parse(text) == true)
    }

    @Test(arguments: ["no", "No", "false", "FALSE", "off", "0", "n", "f"])
    func acceptsFalseSpellingsCaseInsensitively(_ text: String) {
        #expect(BooleanValue.parse(text) == false)
    }

    @Test(arguments: ["", "maybe", "2", "yess", "enabled", " yes", "nope"])
    func rejectsOtherWords(_ text: String) {
        #expect(BooleanValue.parse(text) == nil)
    }
}

struct RetryPolicyTests {
    @Test func exponentialDoublesUpToTheCap() throws {
        let policy = try #require(try RetryPolicy.parse("exponential 30s 5min").get())
        #expect(policy.shape == .exponential(initial: .seconds(30), cap: .seconds(300)))
        #expect(policy.delay(afterFailures: 1) == .seconds(30))
        #expect(policy.delay(afterFailures: 2) == .seconds(60))
        #expect(policy.delay(afterFailures: 3) == .seconds(120))
        #expect(policy.delay(afterFailures: 4) == .seconds(240))
        #expect(policy.delay(afterFailures: 5) == .seconds(300))
        #expect(policy.delay(afterFailures: 1_000_000) == .seconds(300))
        #expect(policy.delay(afterFailures: 0) == .seconds(30))
        #expect(policy.description == "exponential 30s 5min")
    }

    @Test func fixedAlwaysWaitsTheSame() throws {
        let policy = try #require(try RetryPolicy.parse("fixed 5min").get())
        #expect(policy.delay(afterFailures: 1) == .seconds(300))
        #expect(policy.delay(afterFailures: 9) == .seconds(300))
        #expect(policy.description == "fixed 5min")
    }

    @Test(arguments: ["none", "", "NONE"])
    func noneOrEmptyMeansNoPolicy(_ text: String) throws {
        #expect(try RetryPolicy.parse(text).get() == nil)
    }

    @Test(arguments: [
        ("sometimes", "is not a retry policy (examples: exponential 30s 1h, fixed 5min, none)"),
        ("exponential 30s", "exponential takes an initial delay and a cap"),
        ("exponential 1h 30s", "is shorter than the initial delay"),
        ("fixed", "fixed takes one delay"),
        ("fixed 1x", "delay \"1x\" is not a time span"),
        ("fixed 0", "delay must be longer than 0"),
        ("exponential 0 1h", "initial delay must be longer than 0"),
        ("none 5s", "is not a retry policy"),
    ])
    func rejectsMalformedPolicies(_ text: String, _ message: String) {
        guard case .failure(let error) = RetryPolicy.parse(text) else {
            Issue.record("\(text) was accepted")
            return
        }
        #expect(error.message.contains(message))
    }
}

struct RetryPolicyAdviceTests {
    /// The advice is a value to paste: each span one word, as `Retry=` splits on spaces.
    @Test func theSuggestedExponentialPolicyParsesAsWritten() throws {
        guard case .failure(let error) = RetryPolicy.parse("exponential 1h 30s") else {
            Issue.record("a cap below the initial delay was accepted")
            return
        }
        let suggested = try #require(error.message.split(separator: ";").last?
            .replacingOccurrences(of: " write ", with: ""))
        #expect(suggested == "exponential 1h 2d12h")
        let parsed = try RetryPolicy.parse(suggested).get()
        #expect(parsed?.description == suggested)
    }

    @Test func aPolicyDescribesItselfAsAValueThatParsesBack() throws {
        let policy = try #require(try RetryPolicy.parse("exponential 90s 1h30min").get())
        #expect(policy.description == "exponential 1min30s 1h30min")
        #expect(try RetryPolicy.parse(policy.description).get() == policy)
    }
}

struct RetryPolicyEdgeTests {
    @Test func handMadePoliciesAreClampedInsteadOfLoopingOrOverflowing() {
        let huge = RetryPolicy(shape: .exponential(initial: .nanoseconds(1), cap: .seconds(Int64.max)))
        #expect(huge.delay(afterFailures: Int.max) == .seconds(Int64.max))
        let zero = RetryPolicy(shape: .exponential(initial: .zero, cap: .seconds(60)))
        #expect(zero.delay(afterFailures: Int.max) == .zero)
        let inverted = RetryPolicy(shape: .exponential(initial: .seconds(90), cap: .seconds(60)))
        #expect(inverted.delay(afterFailures: 3) == .seconds(60))
    }
}
