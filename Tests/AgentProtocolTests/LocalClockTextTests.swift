// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
@testable import AgentProtocol

/// A time printed without its date is today's; tomorrow's says so (issue: `interval (earliest
/// 07:54)` shown for tomorrow's 07:54).
@Suite struct LocalClockTextTests {
    func utc(_ seconds: Double) -> tm {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return parts
    }

    // 2026-12-01 10:00:00 UTC, a Tuesday.
    let now = 1_796_119_200.0

    @Test func todayIsTheTimeOfDayOnly() {
        #expect(LocalClockText.text(now + 3600, now: now, breakDown: utc) == "11:00")
    }

    @Test func laterThisWeekNamesTheWeekday() {
        #expect(LocalClockText.text(now + 22 * 3600, now: now, breakDown: utc) == "Wed 08:00")
    }

    @Test func furtherOffOrEarlierDaysGiveTheDate() {
        #expect(LocalClockText.text(now + 8 * 86_400, now: now, breakDown: utc) == "2026-12-09 10:00")
        #expect(LocalClockText.text(now - 86_400, now: now, breakDown: utc) == "2026-11-30 10:00")
    }

    /// A time no calendar of years 1…9999 holds (a request's legacy number) is shown at the
    /// edge, never a trap in the agent that formats it.
    @Test func aTimeBeyondTheYear9999IsShownAtTheEdge() {
        #expect(LocalClockText.text(1e19, now: now, breakDown: utc) == "9999-12-31 23:59")
        #expect(LocalClockText.text(-.infinity, now: now, breakDown: utc) == "1970-01-01 00:00")
        #expect(LocalClockText.timeOfDay(1e19).count == 5)
    }
}
