// SPDX-License-Identifier: Apache-2.0
import Testing
import AgentProtocol
@testable import AgentCLI

/// `agentctl list --timers` reads as `systemctl list-timers`: NEXT, LEFT, LAST, PASSED, RESULT,
/// the job, sorted by NEXT with jobs that have none last.
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
        let text = TimersView.render(Self.jobs, runs: Fixture.runs, context: Fixture.context(width: 160))
        GoldenFile.expect(text, matches: "render/list-timers-160.txt")
        let lines = text.split(separator: "\n")
        #expect(lines.first?.hasPrefix("NEXT") == true)
        #expect(lines[1].contains("local.tidy-tmp") && lines[2].contains("local.backup"))
        #expect(!text.contains("com.example.sync"), "a job that cannot run has no timer")
    }
}
