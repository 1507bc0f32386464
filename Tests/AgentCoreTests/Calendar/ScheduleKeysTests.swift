// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// `Schedule=`, `Window=`, `RandomizedDelay=`, `CatchUp=` in job files and drop-in headers.
struct ScheduleKeysTests {
    @Test func readsTheWallClockKeys() throws {
        let result = parseJob(jobText(kind: "processing", """
            Schedule=Mon..Fri 09:00
            Window=01:00-05:00 12:00-13:00
            Window=22:00-02:00
            RandomizedDelay=30min
            CatchUp=no

            """))
        #expect(result.diagnostics.isEmpty)
        let job = try #require(result.value)
        #expect(job.schedule?.text == "Mon..Fri 09:00")
        #expect(job.windows.map(\.description) == ["01:00-05:00", "12:00-13:00", "22:00-02:00"])
        #expect(job.randomizedDelay == .seconds(1800))
        #expect(job.catchUp == false)
    }

    @Test func defaultsAreNoScheduleAnyTimeNoDelayAndCatchUp() throws {
        let job = try #require(parseJob(jobText()).value)
        #expect(job.schedule == nil && job.windows.isEmpty && job.randomizedDelay == .zero && job.catchUp)
    }

    @Test func badValuesAreFileLineErrorsThatSayWhatIsValid() {
        let result = parseJob(jobText(kind: nil, """
            Schedule=Sun 3:1o
            Window=1-5
            RandomizedDelay=soon
            CatchUp=maybe

            """))
        #expect(result.value == nil)
        #expect(printed(result.diagnostics) == [
            "jobs.d/test.job:4: Schedule: \"Sun 3:1o\" is not a calendar event: minute \"1o\" is not a number, "
                + "a range A..B or a step N/STEP; valid forms: daily, Mon..Fri 09:00, *-*-01 04:00, *-*-* 00/6:00, "
                + "*-02~01, 12:00 Europe/Berlin (systemd.time(7))",
            "jobs.d/test.job:5: Window: \"1-5\" is not a window: start \"1\" is not a time from 00:00 to 23:59; "
                + "write START-END in local time, e.g. 01:00-05:00, 22:00-06:00 (may wrap midnight)",
            "jobs.d/test.job:6: RandomizedDelay: \"soon\" is not a time span (examples: 30s, 5min, 12h, 1d)",
            "jobs.d/test.job:7: CatchUp: \"maybe\" is not a boolean (\(BooleanValue.validSpellings))",
        ])
    }

    @Test func aContinuedJobIgnoresScheduleAndWindowWithAWarning() throws {
        let result = parseJob(jobText(kind: "continued", "Schedule=daily\nWindow=01:00-05:00\n"))
        let job = try #require(result.value)
        #expect(job.schedule == nil && job.windows.isEmpty)
        #expect(result.diagnostics.map(\.severity) == [.warning, .warning])
    }

    @Test func aDropInWithAScheduleHasNoDefaultInterval() throws {
        let scheduled = DropInScript.parse(Array("#!/bin/sh\n# agentd: Schedule=\"Sun 03:10\"\n".utf8),
                                           path: "jobs.d/weekly", context: privilegedContext, facts: FakeFacts())
        let job = try #require(scheduled.value)
        #expect(job.schedule?.text == "Sun 03:10")
        #expect(job.interval == nil)
        let both = DropInScript.parse(Array("#!/bin/sh\n# agentd: Schedule=daily Interval=12h\n".utf8),
                                      path: "jobs.d/both", context: privilegedContext, facts: FakeFacts())
        #expect(both.value?.interval == .seconds(43_200))
    }
}
