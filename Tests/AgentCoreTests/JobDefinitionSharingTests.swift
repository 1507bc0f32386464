// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// A job's settings are stored once however many components hold its definition (issue 17:
/// memory per job): copies share them until one copy is changed.
struct JobDefinitionSharingTests {
    private func definition() throws -> JobDefinition {
        var job = JobDefinition(identifier: try #require(Identifier(rawValue: "local.backup")), exec: ["/bin/true"])
        job.interval = .seconds(3600)
        return job
    }

    @Test func aCopyOfADefinitionSharesItsSettings() throws {
        let original = try definition()
        let copy = original
        #expect(copy.box === original.box)
        #expect(copy == original)
    }

    @Test func changingACopyLeavesTheOriginalAsItWas() throws {
        let original = try definition()
        var copy = original
        copy.interval = .seconds(60)
        copy.environment.append(EnvironmentVariable(name: "A", value: "1"))
        #expect(copy.box !== original.box)
        #expect(original.interval == .seconds(3600))
        #expect(original.environment.isEmpty)
        #expect(copy.interval == .seconds(60))
        #expect(copy != original)
    }

    @Test func equalSettingsInSeparateBoxesAreEqualAndHashAlike() throws {
        let one = try definition()
        let other = try definition()
        #expect(one.box !== other.box)
        #expect(one == other)
        #expect(one.hashValue == other.hashValue)
    }

    @Test func theSchedulerHoldsTheRegistrysSettingsNotACopy() throws {
        let job = try definition()
        var scheduler = Scheduler(settings: .defaults, calendar: .utc, seed: 1)
        _ = scheduler.handle(.jobsChanged([job]), now: SchedulerTime(seconds: 100))
        let held = try #require(scheduler.jobs[job.identifier]?.definition)
        #expect(held.box === job.box)
    }
}
