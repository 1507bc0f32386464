// SPDX-License-Identifier: Apache-2.0
import AgentTestSupport
import Foundation
import Testing

/// `WakeSystem=yes` (issue 30 item 4): a real agentd arms a `CLOCK_REALTIME_ALARM` timerfd for the
/// job's next `Schedule=` slot — read back from the kernel (timerfd_gettime) into `status` — and,
/// where the kernel refuses it (here: CAP_WAKE_ALARM dropped from the bounding set), says so in
/// its log, `status` and `agentctl check`. Nothing suspends.
@Suite(.serialized) struct WakeSystemTests {
    /// `*-*-* 03:00:00 UTC`'s next slot after now, unix seconds.
    static func nextThreeAM() -> Double {
        let now = Date().timeIntervalSince1970
        let today = (now / 86400).rounded(.down) * 86400 + 3 * 3600
        return today > now ? today : today + 86400
    }

    static let job = "[Job]\nIdentifier=local.backup\nKind=processing\nExec=/bin/true\nSchedule=*-*-* 03:00:00 UTC\nWakeSystem=yes\n"

    static func inputs(_ agent: AgentProcess) throws -> [String: Any] {
        (try json(try agent.ctl("status", "--json").stdout) as? [String: Any])?["inputs"] as? [String: Any] ?? [:]
    }

    @Test func theAlarmIsArmedForTheJobsNextSlot() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/backup.job", Self.job)
        let expected = Self.nextThreeAM()
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("wake: alarm armed for")
        let inputs = try Self.inputs(agent)
        // An RFC 3339 instant, as every instant in --json (DESIGN §8).
        let armed = Double(try #require(JSONInstant.milliseconds(inputs["wakeAlarmAt"]), "\(inputs)")) / 1000
        #expect(abs(armed - expected) < 1, "armed for \(armed), the slot is \(expected)")
        #expect((inputs["wakeAlarm"] as? String)?.hasSuffix("(local.backup)") == true)
        let check = try runCommand(Binaries.agentctl, ["check", sandbox.configDirectory])
        #expect(!check.stdout.contains("cannot wake itself") && !check.stderr.contains("cannot wake itself"))

        // Disabled, the job wakes nothing: the alarm is disarmed.
        #expect(try agent.ctl("disable", "local.backup").status == 0)
        try agent.waitForLog("wake: alarm disarmed: no WakeSystem= slot to come")
        #expect(try Self.inputs(agent)["wakeAlarmAt"] == nil)
        // Enabled again: armed again for the same slot.
        #expect(try agent.ctl("enable", "local.backup").status == 0)
        let again = Double(try #require(JSONInstant.milliseconds(try Self.inputs(agent)["wakeAlarmAt"]))) / 1000
        #expect(abs(again - expected) < 1)
    }

    @Test func withoutCAPWakeAlarmTheAgentAndCheckSayTheMachineCannotWakeItself() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/backup.job", Self.job)
        let dropped = ["/usr/bin/setpriv", "--bounding-set", "-wake_alarm"]
        let agent = try AgentProcess(sandbox: sandbox, wrapper: dropped)
        try agent.waitForLog("wake: WakeSystem= cannot wake this machine: timerfd_create(CLOCK_REALTIME_ALARM): not permitted: the agent lacks CAP_WAKE_ALARM")
        #expect((try Self.inputs(agent)["wakeAlarm"] as? String)?.hasPrefix("refused: ") == true)
        let check = try runCommand(dropped[0], Array(dropped.dropFirst()) + [Binaries.agentctl, "check", sandbox.configDirectory])
        #expect((check.stdout + check.stderr).contains("WakeSystem: this machine cannot wake itself (the agent lacks CAP_WAKE_ALARM)"))
    }
}
