// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCLI

/// `agentctl pending`/`explain`: an earliest begin on another day shows its day, since a
/// `Schedule=` slot is often days away (Fixture.now: Monday 2026-11-30 14:30 local, UTC+01:00).
struct ScheduleSlotTests {
    let context = Fixture.context()

    @Test func todayIsAClockTimeAndOtherDaysNameTheirDay() {
        let today = Double(Fixture.now + 3600)  // 15:30
        let sunday = Double(Fixture.now + 6 * 86_400 - 11 * 3600 - 1200)  // Sun 03:10
        let christmas = Double(Fixture.now + 24 * 86_400)
        #expect(SchedulingCommands.earliest(today, context) == "in 1 h (15:30)")
        #expect(SchedulingCommands.earliest(sunday, context) == "in 5 d 12 h (Sun 03:10)")
        #expect(SchedulingCommands.earliest(christmas, context) == "in 24 d (2026-12-24 14:30)")
    }
}
