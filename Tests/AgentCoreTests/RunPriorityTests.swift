// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

@Suite struct RunPriorityTests {
    private func parse(_ keys: String) -> ConfigParseResult<JobDefinition> {
        parseJob(jobText("local.p", keys))
    }

    @Test func prioritiesAreReadWithTheKernelsIOPriorityValue() {
        let job = parse("Nice=19\nIOSchedulingClass=idle\nIOSchedulingPriority=7\nCPUWeight=50\n").value
        #expect(job?.priority.nice == 19)
        #expect(job?.priority.ioPriorityValue == 3 << 13)
        #expect(job?.priority.cpuWeight == 50)
        #expect(job?.priority.loweredCPUWeight == 10)
        #expect(job?.priority.loweredNice == 19, "on battery never more favoured than the job's own")
        let level = parse("IOSchedulingPriority=2\n").value
        #expect(level?.priority.ioPriorityValue == Int32((2 << 13) | 2), "a level alone is best-effort, as ionice does")
        #expect(parse("").value?.priority == RunPriority())
    }

    @Test func outOfRangePrioritiesNameWhatIsValid() {
        let errors = parse("Nice=20\nIOSchedulingClass=realtime\nIOSchedulingPriority=8\nCPUWeight=0\n").errors.map(\.description)
        #expect(errors.contains { $0.contains("Nice: \"20\" is not a nice value (a whole number from -20") })
        #expect(errors.contains { $0.contains("realtime is not offered to plugins") })
        #expect(errors.contains { $0.contains("IOSchedulingPriority: \"8\" is not a level from 0 (highest) to 7") })
        #expect(errors.contains { $0.contains("CPUWeight: \"0\" is not a whole number from 1 to 10000") })
    }
}
