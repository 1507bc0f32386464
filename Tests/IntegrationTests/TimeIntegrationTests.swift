// SPDX-License-Identifier: Apache-2.0
import CShim
import Foundation
import Testing

/// DESIGN §10: a real agentd follows the wall clock being set (TFD_TIMER_CANCEL_ON_SET) and the
/// time zone being changed (`/etc/localtime` renamed over, as `timedatectl set-timezone` does).
@Suite(.serialized) struct TimeIntegrationTests {
    @Test func settingTheWallClockIsNoticedAndMovesNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/tick.job", "[Job]\nIdentifier=local.tick\nKind=refresh\nExec=\(sandbox.pluginPath)\nInterval=1h\n")
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("of local.tick ended: success")
        // Set to the time it shows: a step of well under a microsecond that disturbs no one on
        // this machine, yet the kernel cancels every cancel-on-set timer.
        #expect(cshim_realtime_set_to_now() == 0, "clock_settime needs CAP_SYS_TIME (run as root)")
        try agent.waitForLog("wall clock set (a step of")
        #expect(!agent.logLines.contains { $0.contains("wall clock stepped") })
        #expect(agent.logLines.filter { $0.contains("of local.tick started") }.count == 1)
    }

    /// The agent runs in a mount namespace of its own whose `/etc` is a copy the test owns, so
    /// the machine's time zone is never touched.
    @Test func aNewTimeZoneIsFollowedWithoutARestart() throws {
        let sandbox = try Sandbox()
        let etc = sandbox.root + "/etc-copy"
        let copy = try TestUser.whileNoUserChanges { try runCommand("/bin/cp", ["-a", "/etc", etc]) }
        #expect(copy.status == 0, "cp -a /etc \(etc): \(copy.stderr)")
        try replaceLink(etc + "/localtime", with: "/usr/share/zoneinfo/Europe/Paris")
        try sandbox.write("agentd.conf", "[Agent]\nDailyBudget=1\nTriggerSpacing=0\n")
        try sandbox.write("jobs.d/push.job", "[Job]\nIdentifier=local.push\nKind=refresh\nExec=\(sandbox.pluginPath)\n")
        let wrapper = ["/usr/bin/unshare", "-m", "--propagation", "private", "/usr/bin/env", "-u", "TZ",
                       "/bin/sh", "-c", "mount --bind \"$0\" /etc && exec \"$@\"", etc]
        let agent = try AgentProcess(sandbox: sandbox, wrapper: wrapper)
        #expect(try agent.ctl("trigger", "local.push").status == 0)
        try agent.waitForLog("of local.push ended: success")
        #expect(try agent.ctl("trigger", "local.push").status == 0)
        #expect(try waitingFor(agent, "local.push")?.hasPrefix("budget of local (1/1, refills") == true)

        try replaceLink(etc + "/localtime", with: "/usr/share/zoneinfo/America/New_York")
        try agent.waitForLog("local time is now UTC-05:00 (was UTC+01:00): /etc/localtime changed")
        // The refill moved to New York's midnight, which the agent now also shows as 00:00.
        let waiting = try waitingFor(agent, "local.push")
        #expect(waiting?.hasPrefix("budget of local (1/1, refills") == true)
        #expect(waiting?.hasSuffix("00:00)") == true, "\(waiting ?? "nothing waits")")
    }

    /// What `timedatectl set-timezone` does: a new symlink renamed over the old one.
    private func replaceLink(_ path: String, with target: String) throws {
        let temporary = path + ".agentd-test"
        unlink(temporary)
        guard symlink(target, temporary) == 0, rename(temporary, path) == 0 else {
            Issue.record("cannot point \(path) at \(target): \(String(cString: strerror(errno)))")
            throw POSIXError(.EIO)
        }
    }

    private func waitingFor(_ agent: AgentProcess, _ identifier: String) throws -> String? {
        let pending = try json(try agent.ctl("pending", "--json").stdout) as? [[String: Any]] ?? []
        return pending.first { $0["identifier"] as? String == identifier }?["waitingFor"] as? String
    }
}
