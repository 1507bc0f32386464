// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Glibc
import Testing
@testable import AgentDaemon

/// Waiting reasons as `pending` shows them: a `Window=` opening and a `Schedule=` slot name
/// their time, with the day when it is not today (LocalClockText, in the system zone).
struct ReasonTimeTests {
    @Test func windowAndScheduleReasonsNameTheirTime() {
        let now = Double(time(nil))
        let today = ControlHandler.reasonTime(.window(opens: SchedulerTime(seconds: now)), now, now: now)
        #expect(today.hasPrefix(" (opens ") && today.utf8.count == " (opens 01:00)".utf8.count, "\(today)")
        let later = now + 8 * 86_400
        let slot = ControlHandler.reasonTime(.schedule(next: SchedulerTime(seconds: later)), later, now: now)
        // " (next 2026-12-09 03:10)": beyond the coming week, the date.
        #expect(slot.hasPrefix(" (next 20") && slot.utf8.count == " (next 2026-12-09 03:10)".utf8.count, "\(slot)")
    }

    /// `waiting: budget of com.example.photos (12/12, refills 00:00)`: whose budget, how much of
    /// it is used, and the refill's time of day (always the coming local midnight, never a date).
    @Test func aBudgetReasonNamesItsManifestItsUseAndTheRefill() {
        let now = Double(time(nil))
        var seconds = time_t(now)
        var parts = tm()
        localtime_r(&seconds, &parts)
        parts.tm_hour = 24
        parts.tm_min = 0
        parts.tm_sec = 0
        let midnight = Double(mktime(&parts))
        let reason = WaitReason.budget(BudgetStanding(account: "com.example.photos", used: 12, limit: 12,
                                                      refillsAt: SchedulerTime(seconds: midnight)))
        let text = reason.description + ControlHandler.reasonTime(reason, midnight, now: now)
        #expect(text == "budget of com.example.photos (12/12, refills 00:00)")
    }

    /// After a trigger, a reason with no time of its own (paused, disabled…) is said as what
    /// holds the job past its own time, never as "waiting for paused".
    @Test func aTriggerAnswerSaysWhatHoldsTheJobPastItsTime() throws {
        let now = Double(time(nil))
        let id = try #require(Identifier(rawValue: "local.feed"))
        func when(_ reason: WaitReason) -> String {
            ControlHandler.when(reason, at: now + 180, now: now, spacing: .seconds(900), id: id)
        }
        let paused = when(.paused)
        #expect(paused.hasSuffix("(in 3 min) at the earliest, once the agent is resumed (agentctl resume) (agentctl run local.feed runs it now)"), "\(paused)")
        #expect(when(.denied).hasSuffix("at the earliest, once it is enabled again (agentctl enable local.feed)"))
        #expect(when(.restricted) == "Deny= in agentd.conf forbids it: it does not run")
        #expect(when(.maxConcurrent).contains("at the earliest, once fewer than MaxConcurrent= runs are live"))
        for reason in [WaitReason.paused, .denied, .restricted, .maxConcurrent] {
            #expect(!when(reason).contains("waiting for \(reason)"), "\(when(reason))")
        }
    }
}
