// SPDX-License-Identifier: Apache-2.0
import AgentSystem
import Testing
@testable import AgentDaemon

/// A clock set ten times a second (a VM's time sync) must not fill the journal: the first small
/// step is logged, then one line per quiet period counting the steps since.
struct SmallClockStepLogTests {
    private func at(_ seconds: Double) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: UInt64(1_000_000_000_000 + seconds * 1_000_000_000))
    }

    @Test func aClockSetTenTimesASecondIsLoggedOnceThenCountedEveryTenMinutes() {
        var log = SmallClockStepLog()
        #expect(log.line(for: .microseconds(500), at: at(0))
                == "wall clock set (a step of 500 us, or a resume): nothing to move")
        var lines: [String] = []
        // Ten minutes and a second of steps every 100 ms, one of them 0.7 ms back.
        for tenth in 1...6010 {
            let size: Duration = tenth == 42 ? .microseconds(-700) : .microseconds(499)
            if let line = log.line(for: size, at: at(Double(tenth) / 10)) { lines.append(line) }
        }
        #expect(lines == ["wall clock set 6000 times in 10min by steps of at most 700 us: nothing to move "
                          + "(such steps are logged at most every 10min)"])
    }

    @Test func aLoneStepAfterTheQuietPeriodReadsAsTheFirstDid() {
        var log = SmallClockStepLog()
        _ = log.line(for: .microseconds(300), at: at(0))
        #expect(log.line(for: .microseconds(200), at: at(601))
                == "wall clock set (a step of 200 us, or a resume): nothing to move")
        #expect(log.line(for: .microseconds(200), at: at(602)) == nil)
    }
}
