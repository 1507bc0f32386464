// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// `Window=START-END`: where the job may start; START is inside, END is not.
struct TimeWindowTests {
    func window(_ text: String) throws -> TimeWindow { try TimeWindow.parse(text).get() }

    func opens(_ windows: [String], at time: SchedulerTime) throws -> String {
        show(TimeWindows.nextOpen(try windows.map(window), atOrAfter: time, rule: FixedUTCOffset.utc))
    }

    @Test func aWindowOpensExactlyAtItsStartAndClosesAtItsEnd() throws {
        #expect(try opens(["01:00-05:00"], at: localTime(2026, 12, 1, 0, 59, 59)) == "Tue 2026-12-01 01:00:00 +00:00")
        #expect(try opens(["01:00-05:00"], at: localTime(2026, 12, 1, 1, 0)) == "Tue 2026-12-01 01:00:00 +00:00")
        #expect(try opens(["01:00-05:00"], at: localTime(2026, 12, 1, 4, 59, 59)) == "Tue 2026-12-01 04:59:59 +00:00")
        #expect(try opens(["01:00-05:00"], at: localTime(2026, 12, 1, 5, 0)) == "Wed 2026-12-02 01:00:00 +00:00")
    }

    @Test func aWindowMayWrapMidnight() throws {
        let night = try window("22:00-06:00")
        #expect(night.contains(secondOfDay: 23 * 3600) && night.contains(secondOfDay: 0)
            && night.contains(secondOfDay: 5 * 3600 + 3599))
        #expect(!night.contains(secondOfDay: 6 * 3600) && !night.contains(secondOfDay: 12 * 3600))
        #expect(try opens(["22:00-06:00"], at: localTime(2026, 12, 1, 12, 0)) == "Tue 2026-12-01 22:00:00 +00:00")
        #expect(try opens(["22:00-06:00"], at: localTime(2026, 12, 1, 3, 0)) == "Tue 2026-12-01 03:00:00 +00:00")
        #expect(try opens(["22:00-24:00"], at: localTime(2026, 12, 1, 23, 59, 59)) == "Tue 2026-12-01 23:59:59 +00:00")
    }

    @Test func severalWindowsOpenAtTheNearest() throws {
        let both = ["12:00-13:00", "01:00-05:00"]
        #expect(try opens(both, at: localTime(2026, 12, 1, 6, 0)) == "Tue 2026-12-01 12:00:00 +00:00")
        #expect(try opens(both, at: localTime(2026, 12, 1, 13, 0)) == "Wed 2026-12-02 01:00:00 +00:00")
        #expect(try opens(both, at: localTime(2026, 12, 1, 12, 30)) == "Tue 2026-12-01 12:30:00 +00:00")
    }

    @Test func anOpenWindowClosesAtItsEndOrTheEndOfTheWindowsItTouches() throws {
        func closes(_ windows: [String], at time: SchedulerTime) throws -> String? {
            TimeWindows.nextClose(try windows.map(window), after: time, rule: FixedUTCOffset.utc).map { show($0) }
        }
        #expect(try closes(["01:00-05:00"], at: localTime(2026, 12, 1, 2, 0)) == "Tue 2026-12-01 05:00:00 +00:00")
        #expect(try closes(["22:00-02:00"], at: localTime(2026, 12, 1, 23, 0)) == "Wed 2026-12-02 02:00:00 +00:00")
        #expect(try closes(["01:00-05:00", "05:00-06:00"], at: localTime(2026, 12, 1, 2, 0)) == "Tue 2026-12-01 06:00:00 +00:00")
        #expect(try closes(["01:00-05:00"], at: localTime(2026, 12, 1, 5, 0)) == nil)
        #expect(try closes(["00:00-12:00", "12:00-24:00"], at: localTime(2026, 12, 1, 5, 0)) == nil)  // always open
    }

    @Test func aWindowFollowsLocalTime() throws {
        let berlin = FixedUTCOffset(seconds: 3600)
        let opening = TimeWindows.nextOpen([try window("01:00-05:00")], atOrAfter: localTime(2026, 12, 1, 12, 0), rule: berlin)
        #expect(show(opening, berlin) == "Wed 2026-12-02 01:00:00 +01:00")
    }

    @Test func badWindowsSayWhatToWrite() {
        func message(_ text: String) -> String? {
            if case .failure(let error) = TimeWindow.parse(text) { return error.message }
            return nil
        }
        let advice = "write START-END in local time, e.g. 01:00-05:00, 22:00-06:00 (may wrap midnight)"
        #expect(message("1-5") == "\"1-5\" is not a window: start \"1\" is not a time from 00:00 to 23:59; \(advice)")
        #expect(message("01:00") == "\"01:00\" is not a window: it needs one - between two times; \(advice)")
        #expect(message("01:00-25:00") == "\"01:00-25:00\" is not a window: end \"25:00\" is not a time from 00:00 to 24:00; \(advice)")
        #expect(message("03:00-03:00") == "\"03:00-03:00\" is not a window: it starts where it ends; to allow any time, remove Window=; \(advice)")
        #expect(message("1:00-5:30") == nil)
    }
}
