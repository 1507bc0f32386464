// SPDX-License-Identifier: Apache-2.0
import Testing
import AgentProtocol
@testable import AgentCLI

/// `agentctl list` reads as `systemctl list-timers` (DESIGN §8): NEXT, LEFT, LAST, PASSED, RESULT,
/// the job and its state, sorted by NEXT with jobs that have none after them, and jobs that cannot
/// run last.
struct TimersViewTests {
    static let now = Double(Fixture.now)

    static let jobs = [
        JobSummary(identifier: "local.backup", kind: .processing, source: "jobs.d/backup.job", state: "registered",
                   exec: ["/usr/lib/agentd/plugins/backup"], intervalSeconds: 86_400,
                   waiting: "schedule (next 03:10)", waitingReason: "schedule", waitingUntil: now + 5 * 3600),
        JobSummary(identifier: "local.tidy-tmp", kind: .processing, source: "jobs.d/tidy-tmp", state: "registered",
                   exec: ["/etc/agentd/jobs.d/tidy-tmp"], intervalSeconds: 3600,
                   waiting: "interval (earliest 12:40)", waitingReason: "interval", waitingUntil: now + 1200),
        JobSummary(identifier: "local.photos.export", kind: .continued, source: "jobs.d/photos.job",
                   state: "registered", exec: ["/usr/lib/agentd/plugins/example-export"], intervalSeconds: nil),
        JobSummary(identifier: "com.example.sync", kind: .refresh, source: "jobs.d/sync.job",
                   state: "not-permitted: no manifest permits com.example.sync", exec: ["/opt/sync"], intervalSeconds: 900),
    ]

    @Test func theViewIsSortedByNextAndShowsTheLastRun() {
        let text = TimersView.render(Self.jobs, lastRun: TimersView.latest(Fixture.runs), context: Fixture.context(width: 160))
        GoldenFile.expect(text, matches: "render/list-timers-160.txt")
        let lines = text.split(separator: "\n")
        #expect(lines.first?.hasPrefix("NEXT") == true)
        #expect(lines[1].contains("local.tidy-tmp") && lines[2].contains("local.backup"))
        #expect(lines[lines.count - 2].hasPrefix("-") && lines[lines.count - 2].contains("com.example.sync")
                    && lines[lines.count - 2].hasSuffix("not-permitted: no manifest permits com.e…"),
                "a job that cannot run comes last, without a next run, with why")
    }

    @Test func aNarrowTerminalGetsShortTimesInsteadOfLosingTheState() {
        let wide = TimersView.render(Self.jobs, lastRun: TimersView.latest(Fixture.runs), context: Fixture.context(width: 160))
        #expect(wide.contains("Mon 2026-11-30 14:50:00 GMT  20 min"))
        let narrower = TimersView.render(Self.jobs, lastRun: TimersView.latest(Fixture.runs), context: Fixture.context(width: 120))
        #expect(narrower.contains("14:50  20 min  14:29"), "\(narrower)")
        // The wait's time is written from its instant, in the zone NEXT is shown in.
        #expect(narrower.contains("waiting: interval (earliest 14:50)"), "the state is whole: \(narrower)")
        let narrow = TimersView.render(Self.jobs, lastRun: TimersView.latest(Fixture.runs), context: Fixture.context(width: 80))
        GoldenFile.expect(narrow, matches: "render/list-80.txt")
        for line in narrow.split(separator: "\n") { #expect(line.count <= 80, "\(line)") }
    }

    /// A job whose run is live is `running`, and its NEXT says when the next run is due, as
    /// `systemctl list-timers` shows a running timer's next elapse.
    @Test func aRunningJobIsRunningWithItsNextRunDue() {
        let mirror = JobSummary(identifier: "local.mirror", kind: .processing, source: "jobs.d/mirror.job",
                                state: "registered", exec: ["/usr/local/bin/mirror"], intervalSeconds: 86_400,
                                waiting: "interval (earliest 12:40)", waitingReason: "interval", waitingUntil: Self.now + 1200)
        let text = TimersView.render([mirror], lastRun: TimersView.latest(Fixture.runs), context: Fixture.context(width: 160))
        let row = text.split(separator: "\n").first { $0.contains("local.mirror") }.map(String.init) ?? ""
        #expect(row.contains("Mon 2026-11-30 14:50:00 GMT  20 min"), "\(row)")
        #expect(row.hasSuffix("local.mirror  running"), "\(row)")
    }
}
