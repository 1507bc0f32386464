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
        let item = PendingSummary(identifier: "local.slow", kind: .processing, waitingFor: "requested (earliest 23:00)",
                                  request: RunRequestOptions(earliestBegin: now + 3600, requiresNetwork: .unmetered,
                                                             requiresExternalPower: true),
                                  reason: .known(.requested), until: now + 3600)
        let text = SchedulingCommands.pendingTable([item], Fixture.context()).render(width: 160)
        #expect(text.contains("requested (earliest 23:00); requires unmetered network; requires external power"), "\(text)")
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
}
