// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

private let t0 = Duration.seconds(1000)

@Test func theDefaultTeardownIsTermContGraceKill() {
    #expect(Teardown(gracePeriod: .seconds(5)).steps == [.signal(15), .signal(18), .wait(.seconds(5)), .kill])
    #expect(Teardown(gracePeriod: .seconds(5)).totalWait == .seconds(5))
}

@Test(arguments: [Duration.zero, .seconds(-3)])
func aGraceOfZeroHasNoWait(_ grace: Duration) {
    #expect(Teardown(gracePeriod: grace).steps == [.signal(15), .signal(18), .kill])
}

@Test(arguments: [
    ([TeardownStep](), [TeardownStep.kill]),
    ([.signal(2)], [.signal(2), .signal(18), .kill]),
    ([.kill, .signal(15)], [.kill]),
    ([.signal(2), .wait(.seconds(1)), .kill, .wait(.seconds(9)), .kill],
     [.signal(2), .signal(18), .wait(.seconds(1)), .kill]),
    ([.wait(.zero), .signal(1), .wait(.seconds(-1))], [.signal(1), .signal(18), .kill]),
])
func everyTeardownEndsInExactlyOneKill(_ steps: [TeardownStep], _ expected: [TeardownStep]) {
    let teardown = Teardown(steps: steps)
    #expect(teardown.steps == expected)
    #expect(teardown.steps.last == .kill)
    #expect(teardown.steps.filter { $0 == .kill }.count == 1)
}

/// DESIGN §5: a stopped plugin must get to handle SIGTERM, so SIGCONT follows every signal at
/// once, in the same instant, before the grace period starts.
@Test func everySignalIsFollowedAtOnceBySigcont() {
    let teardown = Teardown(steps: [.signal(2), .wait(.seconds(1)), .signal(15), .signal(18), .signal(18),
                                    .wait(.seconds(1)), .signal(9)])
    #expect(teardown.steps == [.signal(2), .signal(18), .wait(.seconds(1)), .signal(15), .signal(18),
                               .wait(.seconds(1)), .signal(9), .kill])
    var progress = TeardownProgress(teardown: Teardown(gracePeriod: .seconds(5)), startedAt: t0)
    #expect(progress.advance(now: t0) == [.sendSignal(Teardown.sigterm), .sendSignal(Teardown.sigcont)])
}

@Test func sigtermAtTheStartAndSigkillExactlyAtTheEndOfGrace() {
    var progress = TeardownProgress(teardown: Teardown(gracePeriod: .seconds(5)), startedAt: t0)
    #expect(progress.nextDeadline == t0)
    #expect(progress.advance(now: t0) == [.sendSignal(15), .sendSignal(18)])
    #expect(progress.nextDeadline == t0 + .seconds(5))
    #expect(progress.advance(now: t0 + .seconds(1)).isEmpty)
    #expect(progress.advance(now: t0 + .seconds(5) - .nanoseconds(1)).isEmpty)
    #expect(!progress.isFinished)
    #expect(progress.advance(now: t0 + .seconds(5)) == [.killAll])
    #expect(progress.isFinished)
    #expect(progress.nextDeadline == nil)
    #expect(progress.advance(now: t0 + .seconds(60)).isEmpty)
}

@Test func aGraceOfZeroSendsTermThenKillAtOnce() {
    var progress = TeardownProgress(teardown: Teardown(gracePeriod: .zero), startedAt: t0)
    #expect(progress.advance(now: t0) == [.sendSignal(15), .sendSignal(18), .killAll])
    #expect(progress.nextDeadline == nil)
}

@Test func advancingLateEmitsEverythingDueInOrder() {
    var progress = TeardownProgress(teardown: Teardown(gracePeriod: .seconds(5)), startedAt: t0)
    #expect(progress.advance(now: t0 + .seconds(7)) == [.sendSignal(15), .sendSignal(18), .killAll])
    #expect(progress.isFinished)
}

@Test func nothingIsSentBeforeTheTeardownStarts() {
    var progress = TeardownProgress(teardown: Teardown(gracePeriod: .seconds(5)), startedAt: t0)
    #expect(progress.advance(now: t0 - .seconds(1)).isEmpty)
    #expect(progress.nextDeadline == t0)
}

@Test func deadlinesAreFixedFromTheStartNotFromLateAdvances() {
    let teardown = Teardown(steps: [.signal(2), .wait(.seconds(2)), .signal(15), .wait(.seconds(3))])
    var progress = TeardownProgress(teardown: teardown, startedAt: t0)
    #expect(progress.advance(now: t0) == [.sendSignal(2), .sendSignal(18)])
    #expect(progress.nextDeadline == t0 + .seconds(2))
    // One second late for SIGTERM: SIGKILL stays due at t0 + 5, not t0 + 6.
    #expect(progress.advance(now: t0 + .seconds(3)) == [.sendSignal(15), .sendSignal(18)])
    #expect(progress.nextDeadline == t0 + .seconds(5))
    #expect(progress.advance(now: t0 + .seconds(5)) == [.killAll])
}

@Test func consecutiveAndLeadingWaitsGiveOneDeadline() {
    let teardown = Teardown(steps: [.wait(.seconds(1)), .wait(.seconds(2)), .signal(15)])
    var progress = TeardownProgress(teardown: teardown, startedAt: t0)
    #expect(progress.nextDeadline == t0 + .seconds(3))
    #expect(progress.advance(now: t0 + .seconds(1)).isEmpty)
    #expect(progress.nextDeadline == t0 + .seconds(3))
    #expect(progress.advance(now: t0 + .seconds(3)) == [.sendSignal(15), .sendSignal(18), .killAll])
}

@Test func anAbsurdGraceSaturatesInsteadOfTrapping() {
    let huge = Duration.seconds(Int64.max)
    let teardown = Teardown(steps: [.signal(15), .wait(huge), .wait(huge)])
    var progress = TeardownProgress(teardown: teardown, startedAt: t0)
    #expect(progress.advance(now: t0) == [.sendSignal(15), .sendSignal(18)])
    #expect(progress.nextDeadline == .seconds(Int64.max))
    #expect(teardown.totalWait == .seconds(Int64.max))
}

@Test func durationSumSaturatesBothWays() {
    #expect(DurationArithmetic.sum(.seconds(1), .milliseconds(500)) == .milliseconds(1500))
    #expect(DurationArithmetic.sum(.milliseconds(700), .milliseconds(700)) == .milliseconds(1400))
    #expect(DurationArithmetic.sum(.seconds(-1), .milliseconds(-700)) == .milliseconds(-1700))
    #expect(DurationArithmetic.sum(.seconds(Int64.max), .seconds(1)) == .seconds(Int64.max))
    #expect(DurationArithmetic.sum(.seconds(Int64.min), .seconds(-1)) == .seconds(Int64.min))
}
