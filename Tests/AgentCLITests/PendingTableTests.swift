// SPDX-License-Identifier: Apache-2.0
@testable import AgentCLI
import AgentProtocol
import Testing

/// `agentctl pending`: EARLIEST is when an entry may start at the earliest, never `now` beside a
/// wait that names a later instant.
@Suite struct PendingTableTests {
    @Test func earliestIsTheInstantTheWaitNamesWhenItIsLater() {
        let now = Double(Fixture.now)
        let item = PendingSummary(identifier: "local.feed", kind: .refresh, waitingFor: "interval (earliest 15:10)",
                                  earliestBegin: now - 60, reason: .known(.interval), until: now + 3600)
        let text = SchedulingCommands.pendingTable([item], Fixture.context()).render(width: 120)
        #expect(!text.contains(" now "), "\(text)")
        #expect(text.contains("in 1 h"), "\(text)")
    }

    @Test func earliestIsNowWhenNothingLaterIsNamed() {
        let now = Double(Fixture.now)
        let item = PendingSummary(identifier: "local.backup", kind: .processing, waitingFor: "external power",
                                  earliestBegin: now - 60, reason: .known(.condition))
        let text = SchedulingCommands.pendingTable([item], Fixture.context()).render(width: 120)
        #expect(text.contains("now"), "\(text)")
    }

    /// A request's requirements are shown beside why it waits, as `request` set them.
    @Test func aRequestsRequirementsAreShown() {
        let now = Double(Fixture.now)
        let item = PendingSummary(identifier: "local.slow", kind: .processing, waitingFor: "requested (earliest 15:30)",
                                  request: RunRequestOptions(earliestBegin: now + 3600, requiresNetwork: .unmetered,
                                                             requiresExternalPower: true),
                                  reason: .known(.requested), until: now + 3600)
        let text = SchedulingCommands.pendingTable([item], Fixture.context()).render(width: 160)
        #expect(text.contains("requested (earliest 15:30); requires unmetered network; requires external power"), "\(text)")
    }

    /// A disabled job waits until a person enables it: no earliest begin, though its interval
    /// would have ended.
    @Test func aDisabledJobHasNoEarliest() {
        let now = Double(Fixture.now)
        let item = PendingSummary(identifier: "local.feed", kind: .refresh, waitingFor: "disabled",
                                  earliestBegin: now + 41, reason: .known(.denied))
        let text = SchedulingCommands.pendingTable([item], Fixture.context()).render(width: 120)
        #expect(!text.contains("in 41 s"), "\(text)")
        let line = SchedulingCommands.nowLine(pending: [item], runs: [], timeline: [], kind: .refresh, context: Fixture.context())
        #expect(line == "  now: waiting: disabled", "\(line)")
    }

    /// agentd words a wait's time in its own zone; agentctl in another zone (TZ=Asia/Tokyo)
    /// writes it again from the wait's instant, in the zone its other columns are in. A
    /// budget's refill stays as agentd wrote it (its counts, agentd's midnight).
    @Test func aWaitsTimeIsWrittenInAgentctlsZone() {
        let now = Double(Fixture.now)
        let tokyo = DisplayClock.fixed(milliseconds: Fixture.now * 1000, zone: .fixedOffset(seconds: 9 * 3600))
        let expected = LocalClockText.text(now + 3600, now: now) { tokyo.local(Int64($0)) }
        #expect(WaitingText.local("interval (earliest 19:31)", code: .known(.interval), until: now + 3600, clock: tokyo)
            == "interval (earliest \(expected))")
        #expect(WaitingText.local("window (opens 19:31)", code: .known(.window), until: now + 3600, clock: tokyo)
            == "window (opens \(expected))")
        let budget = "budget of test (2/2, refills 00:00)"
        #expect(WaitingText.local(budget, code: .known(.budget), until: now + 3600, clock: tokyo) == budget)
        #expect(WaitingText.local("external power", code: .known(.condition), until: nil, clock: tokyo) == "external power")
    }
}
