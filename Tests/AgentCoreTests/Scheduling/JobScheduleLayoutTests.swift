// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// The scheduler holds an entry per registered job in a dictionary, whose spare buckets pay for
/// the entry's full size: what most jobs do not have is kept out of line (issue 17).
struct JobScheduleLayoutTests {
    private func entry() throws -> JobSchedule {
        let definition = JobDefinition(identifier: try #require(Identifier(rawValue: "local.a")), exec: ["/bin/true"])
        return JobSchedule(definition: definition, firstSeen: SchedulerTime(seconds: 1), restricted: false)
    }

    @Test func aJobsEntryHoldsItsWaitStateOutOfLine() {
        // Definition (two boxes), first-seen time, two flags, the wait state's reference.
        #expect(MemoryLayout<JobSchedule>.stride <= 48)
    }

    @Test func aPendingRequestCatchUpAndSkippedSlotsAreKeptAndCleared() throws {
        var job = try entry()
        #expect(job.request.isEmpty)
        job.request.triggeredAt = SchedulerTime(seconds: 5)
        job.catchUp = CatchUpSlot(at: SchedulerTime(seconds: 6), dueSince: SchedulerTime(seconds: 2))
        job.skippedSlotsUntil = SchedulerTime(seconds: 7)
        #expect(job.request.triggeredAt == SchedulerTime(seconds: 5))
        #expect(job.catchUp?.at == SchedulerTime(seconds: 6))
        #expect(job.skippedSlotsUntil == SchedulerTime(seconds: 7))
        job.request = PendingRequest()
        job.catchUp = nil
        #expect(job.request.isEmpty)
        #expect(job.catchUp == nil)
        #expect(job.skippedSlotsUntil == SchedulerTime(seconds: 7))
    }
}
