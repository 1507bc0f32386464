// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Glibc
import Testing
@testable import AgentDaemon

/// Waiting reasons as `pending` shows them: a `Schedule=` slot or a `Window=` opening on
/// another day carries its date (the daemon formats in the system zone).
struct ReasonTimeTests {
    @Test func aSlotTodayIsAClockTimeAndOnAnotherDayHasItsDate() {
        let now = Double(time(nil))
        let today = ControlHandler.clockWithDate(now, now: now)
        #expect(today.utf8.count == 5 && today.contains(":"))
        let later = ControlHandler.clockWithDate(now + 8 * 86_400, now: now)
        // "Sun 2026-12-06 03:10"
        #expect(later.utf8.count == 20 && later.split(separator: " ").count == 3, "\(later)")
        #expect(ControlHandler.reasonTime(.window(opens: SchedulerTime(seconds: now)), now).hasPrefix(" (opens "))
        #expect(ControlHandler.reasonTime(.schedule(next: SchedulerTime(seconds: now + 8 * 86_400)), now)
            .hasPrefix(" (next "))
    }
}
