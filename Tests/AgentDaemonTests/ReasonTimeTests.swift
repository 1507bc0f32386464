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
}
