// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `Schedule=` and `Window=` end to end: a real agentd in the machine's zone, real agentctl.
@Suite(.serialized) struct CalendarScheduleIntegrationTests {
    private func plugin(_ sandbox: Sandbox, _ name: String) throws -> String {
        let path = sandbox.root + "/\(name).sh"
        try "#!/bin/sh\necho STATUS=ran\n".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    /// What `id` waits for. The agent opens its socket only once the scheduler has every job
    /// loaded at start (`ready:`), so the first answer after that lists it.
    private func waiting(_ agent: AgentProcess, _ id: String) throws -> String? {
        try agent.waitForLog("ready:")
        let items = try json(try agent.ctl("pending", "--json").stdout) as? [[String: Any]] ?? []
        return items.first(where: { $0["identifier"] as? String == id })?["waitingFor"] as? String
    }

    @Test func aScheduledJobWaitsForItsSlotAndPendingShowsItsDate() throws {
        let sandbox = try Sandbox()
        let path = try plugin(sandbox, "yearly")
        try sandbox.write("jobs.d/yearly.job", "[Job]\nIdentifier=local.yearly\nExec=\(path)\nSchedule=yearly\n")
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("local.yearly")
        let reason = try #require(try waiting(agent, "local.yearly"))
        // "schedule (next Fri 2027-01-01 00:00)": New Year is never today, bar one day a year.
        #expect(reason.hasPrefix("schedule (next ") && reason.hasSuffix("-01-01 00:00)"), "\(reason)")
        let explain = try agent.ctl("explain", "local.yearly")
        #expect(explain.stdout.contains("waiting: schedule (next "), "\(explain.stdout)")
    }

    @Test func aJobRunsAtItsSlots() throws {
        let sandbox = try Sandbox()
        let path = try plugin(sandbox, "often")
        // Every 2 seconds, at even seconds.
        try sandbox.write("jobs.d/often.job", "[Job]\nIdentifier=local.often\nKind=refresh\nExec=\(path)\nSchedule=*:*:0/2\n")
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("run r000001 of local.often started (scheduled")
        try agent.waitForLog("run r000002 of local.often started (scheduled")
    }

    @Test func aJobOutsideItsWindowWaitsForItToOpen() throws {
        let sandbox = try Sandbox()
        let path = try plugin(sandbox, "windowed")
        // A one-minute window two hours from now, local time.
        let opens = Calendar.current.dateComponents([.hour, .minute], from: Date().addingTimeInterval(7200))
        let start = String(format: "%02d:%02d", opens.hour ?? 0, opens.minute ?? 0)
        let endMinute = ((opens.hour ?? 0) * 60 + (opens.minute ?? 0) + 1) % 1440
        let end = String(format: "%02d:%02d", endMinute / 60, endMinute % 60)
        try sandbox.write("jobs.d/windowed.job",
                          "[Job]\nIdentifier=local.windowed\nExec=\(path)\nInterval=1h\nWindow=\(start)-\(end)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("local.windowed")
        let reason = try #require(try waiting(agent, "local.windowed"))
        #expect(reason.hasPrefix("window (opens ") && reason.hasSuffix("\(start))"), "\(reason)")
    }
}
