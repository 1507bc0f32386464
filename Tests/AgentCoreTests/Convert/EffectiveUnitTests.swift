// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

private func unit(_ text: String) -> UnitFile {
    UnitFileParser.parse(Array(text.utf8), path: "x", expectedSection: "[Timer]").value ?? UnitFile()
}

private func pairs(_ file: UnitFile, _ section: String) -> [String] {
    file.entries(in: section).map { "\($0.key)=\($0.value)" }
}

/// A unit and its drop-ins read as systemd.unit(5) reads them, so that `convert` keeps what
/// `systemctl edit` changed.
@Suite struct EffectiveUnitTests {
    /// What `systemctl edit apt-daily.timer` is most often used for: another calendar.
    @Test func aDropInReplacesTheTimersCalendarAsSystemctlEditDoes() throws {
        let timer = try #require(TestFiles.read(ConvertCorpusTests.corpus + "/systemd/apt-daily.timer"))
        let service = try #require(TestFiles.read(ConvertCorpusTests.corpus + "/systemd/apt-daily.service"))
        let merged = EffectiveUnit.merge(unit(timer), dropIns: [unit("[Timer]\nOnCalendar=\nOnCalendar=*-*-* 03:00\n"),
                                                                unit("[Timer]\nRandomizedDelaySec=0\n")])
        #expect(pairs(merged, "Timer") == ["Persistent=true", "OnCalendar=*-*-* 03:00", "RandomizedDelaySec=0"])
        let job = TimerConverter.convert(timer: merged, service: unit(service), name: "apt-daily", sources: ["apt-daily.timer"])
        #expect(job.keys.filter { $0.key == "Schedule" }.map(\.value) == ["*-*-* 03:00"])
        #expect(value(job, "RandomizedDelay") == "0")
        #expect(!job.notConverted.contains { $0.hasPrefix("OnCalendar") }, "\(job.notConverted)")
        ConvertCorpusTests.expectAccepted(job)
    }

    /// systemd.timer(5): an empty trigger resets every trigger, calendar and monotonic alike.
    @Test func anEmptyCalendarInADropInEmptiesTheBootAndSpanTriggersToo() {
        let merged = EffectiveUnit.merge(unit("[Timer]\nOnBootSec=15min\nOnUnitActiveSec=1d\nPersistent=true\n"),
                                         dropIns: [unit("[Timer]\nOnCalendar=\nOnCalendar=*-*-* 04:00\n")])
        #expect(pairs(merged, "Timer") == ["Persistent=true", "OnCalendar=*-*-* 04:00"])
    }

    @Test func aListGrowsWithEachAssignmentAndAnEmptyOneEmptiesIt() {
        let merged = EffectiveUnit.merge(unit("[Service]\nEnvironment=A=1\nExecStart=/bin/a\n"),
                                         dropIns: [unit("[Service]\nEnvironment=B=2\nExecStart=\nExecStart=/bin/b\n")])
        #expect(pairs(merged, "Service") == ["Environment=A=1", "Environment=B=2", "ExecStart=/bin/b"])
    }

    @Test func anyOtherSettingIsItsLastAssignmentAndAnEmptyOnePutsBackTheDefault() {
        let merged = EffectiveUnit.merge(unit("[Service]\nUser=backup\nNice=5\nWorkingDirectory=/srv\n"),
                                         dropIns: [unit("[Service]\nUser=root\nNice=\n")])
        #expect(pairs(merged, "Service") == ["WorkingDirectory=/srv", "User=root"])
    }

    /// systemd.unit(5): an empty `Condition…=` resets every condition, of whatever kind; as
    /// Debian's README.Debian for anacron says to run on battery.
    @Test func anEmptyConditionEmptiesEveryConditionBeforeItButNotTheAssertions() {
        let merged = EffectiveUnit.merge(
            unit("[Unit]\nConditionACPower=true\nConditionPathExists=/x\nAssertPathExists=/y\nDescription=d\n"),
            dropIns: [unit("[Unit]\nConditionACPower=\nConditionVirtualization=!container\n")])
        #expect(pairs(merged, "Unit") == ["AssertPathExists=/y", "Description=d", "ConditionVirtualization=!container"])
    }

    @Test func aSectionOnlyADropInHasIsAdded() {
        let merged = EffectiveUnit.merge(unit("[Timer]\nOnCalendar=daily\n"), dropIns: [unit("[Unit]\nConditionACPower=true\n")])
        #expect(pairs(merged, "Timer") == ["OnCalendar=daily"])
        #expect(pairs(merged, "Unit") == ["ConditionACPower=true"])
    }
}
