// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// What the machine's sleep does to a job's runs (DESIGN §6 "sleep", `OnSleep=`).
struct SleepPolicyTests {
    private func job(kind: String, _ extra: String = "") throws -> JobDefinition {
        let result = parseJob(jobText(kind: kind, extra))
        return try #require(result.value, "\(printed(result.diagnostics))")
    }

    @Test func withoutOnSleepContinuedAndPausableRunsAreFrozenOthersExpired() throws {
        #expect(SleepPolicy.action(try job(kind: "continued")) == .freeze)
        #expect(SleepPolicy.action(try job(kind: "processing", "OnConditionLost=pause\n")) == .freeze)
        #expect(SleepPolicy.action(try job(kind: "processing")) == .expire)
        #expect(SleepPolicy.action(try job(kind: "refresh")) == .expire)
    }

    @Test func onSleepOverridesTheDefaultEitherWay() throws {
        #expect(SleepPolicy.action(try job(kind: "continued", "OnSleep=expire\n")) == .expire)
        #expect(SleepPolicy.action(try job(kind: "processing", "OnConditionLost=pause\nOnSleep=expire\n")) == .expire)
        #expect(SleepPolicy.action(try job(kind: "processing", "OnSleep=freeze\n")) == .freeze)
        #expect(SleepPolicy.freezes(try job(kind: "refresh", "OnSleep=freeze\n")))
    }

    @Test func anUnknownOnSleepActionIsAnErrorNamingTheChoices() {
        let result = parseJob(jobText(kind: "continued", "OnSleep=hibernate\n"))
        #expect(printed(result.diagnostics).contains { $0.contains("OnSleep: \"hibernate\" is not an action (freeze, expire)") },
                "\(printed(result.diagnostics))")
    }
}
