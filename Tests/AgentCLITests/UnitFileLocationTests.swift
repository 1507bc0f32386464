// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import AgentCLI

/// Which unit file and drop-ins `convert` reads: systemd's, in systemd's order.
@Suite struct UnitFileLocationTests {
    let root: String

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("unit-location-\(UUID().uuidString)").path
        for directory in ["etc/foo@bar.timer.d", "etc/foo@.timer.d", "lib/foo@.timer.d", "lib/foo@bar.timer.d"] {
            try FileManager.default.createDirectory(atPath: root + "/" + directory, withIntermediateDirectories: true)
        }
        for file in ["etc/foo@bar.timer.d/20-b.conf", "etc/foo@.timer.d/10-a.conf", "lib/foo@.timer.d/10-a.conf",
                     "lib/foo@.timer.d/30-c.conf", "lib/foo@bar.timer.d/20-b.conf", "lib/foo@bar.timer.d/notes.txt",
                     "lib/foo@.timer"] {
            try "[Timer]\n".write(toFile: root + "/" + file, atomically: false, encoding: .utf8)
        }
    }

    /// By file name across directories and the template's and instance's `.d`, a file in an
    /// earlier directory hiding one of the same name in a later one; only `*.conf`.
    @Test func dropInsAreSortedByNameAndTheFirstDirectoryWins() {
        let found = UnitFileLocation.dropIns(of: "foo@bar.timer", in: [root + "/etc", root + "/lib"])
        #expect(found == [root + "/etc/foo@.timer.d/10-a.conf", root + "/etc/foo@bar.timer.d/20-b.conf",
                          root + "/lib/foo@.timer.d/30-c.conf"])
        try? FileManager.default.removeItem(atPath: root)
    }

    /// systemd's walk (src/shared/dropin.c): the unit, its template, then each dash prefix, more
    /// specific first, each with its own template and prefixes.
    @Test func dropInNamesFollowTheTemplateAndEachDashPrefix() {
        #expect(UnitFileLocation.dropInNames(of: "apt-daily-upgrade.service")
            == ["apt-daily-upgrade.service", "apt-daily-.service", "apt-.service"])
        #expect(UnitFileLocation.dropInNames(of: "foo-bar@x.timer")
            == ["foo-bar@x.timer", "foo-bar@.timer", "foo-.timer", "foo-@x.timer", "foo-@.timer"])
        #expect(UnitFileLocation.dropInNames(of: "logrotate.timer") == ["logrotate.timer"])
        #expect(UnitFileLocation.dropInNames(of: "-leading.service") == ["-leading.service"])
        try? FileManager.default.removeItem(atPath: root)
    }

    /// A dash prefix's drop-in joins the unit's; the type-wide `timer.d` comes last of all, so a
    /// file of the same name in the unit's own directory under /lib hides /etc's type-wide one.
    @Test func dashPrefixAndTypeWideDropInsAreReadTheTypeWideLast() throws {
        for directory in ["etc/timer.d", "etc/foo-.timer.d", "lib/foo-bar.timer.d"] {
            try FileManager.default.createDirectory(atPath: root + "/" + directory, withIntermediateDirectories: true)
        }
        for file in ["etc/timer.d/10-all.conf", "etc/timer.d/50-same.conf", "etc/foo-.timer.d/20-prefix.conf",
                     "lib/foo-bar.timer.d/50-same.conf"] {
            try "[Timer]\n".write(toFile: root + "/" + file, atomically: false, encoding: .utf8)
        }
        let found = UnitFileLocation.dropIns(of: "foo-bar.timer", in: [root + "/etc", root + "/lib"])
        #expect(found == [root + "/etc/timer.d/10-all.conf", root + "/etc/foo-.timer.d/20-prefix.conf",
                          root + "/lib/foo-bar.timer.d/50-same.conf"])
        try? FileManager.default.removeItem(atPath: root)
    }

    @Test func theUnitFileInForceIsTheFirstDirectorysAndAnEmptyOneIsMasked() throws {
        #expect(UnitFileLocation.file("foo@.timer", in: [root + "/etc", root + "/lib"]) == root + "/lib/foo@.timer")
        try "".write(toFile: root + "/etc/foo@.timer", atomically: false, encoding: .utf8)
        let inForce = try #require(UnitFileLocation.file("foo@.timer", in: [root + "/etc", root + "/lib"]))
        #expect(inForce == root + "/etc/foo@.timer")
        #expect(UnitFileLocation.isMasked(inForce))
        try FileManager.default.createSymbolicLink(atPath: root + "/etc/bar.timer", withDestinationPath: "/dev/null")
        #expect(UnitFileLocation.isMasked(root + "/etc/bar.timer"))
        #expect(!UnitFileLocation.isMasked(root + "/lib/foo@.timer"))
        try? FileManager.default.removeItem(atPath: root)
    }

    /// The oracle is systemd's own list for the system manager, on this Debian 12.
    @Test func theSystemDirectoriesAreSystemdsUnitSearchPathInItsOrder() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
        process.arguments = ["unit-paths"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(text.split(separator: "\n").map(String.init) == UnitFileLocation.systemDirectories)
        try? FileManager.default.removeItem(atPath: root)
    }

    @Test func aUnitOutsideSystemdsDirectoriesIsReadWithWhatIsBesideItOnly() {
        #expect(UnitFileLocation.directories(beside: "/lib/systemd/system") == UnitFileLocation.systemDirectories)
        #expect(UnitFileLocation.directories(beside: root) == [root])
        try? FileManager.default.removeItem(atPath: root)
    }
}

/// `convert --system` converts the timers `systemctl enable` linked into timers.target and says
/// which others it leaves to systemd, with the command that converts one.
@Suite struct TimersLeftToSystemdTests {
    @Test func timersAServicePullsInOrAPackageLinksItselfAreNamedWithTheCommandThatConvertsThem() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("left-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let etc = root + "/etc", lib = root + "/lib", generator = root + "/run/systemd/generator"
        let links = ["etc/timers.target.wants/logrotate.timer", "etc/sysstat.service.wants/sysstat-collect.timer",
                     "etc/sysstat.service.wants/sysstat.conf", "lib/timers.target.wants/systemd-tmpfiles-clean.timer",
                     "lib/timers.target.wants/logrotate.timer", "run/systemd/generator/cron.target.wants/cron-x.timer",
                     "etc/multi-user.target.wants/masked.timer"]
        for link in links {
            let path = root + "/" + link
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try "".write(toFile: path, atomically: false, encoding: .utf8)
        }
        for unit in ["logrotate.timer", "sysstat-collect.timer", "systemd-tmpfiles-clean.timer", "masked.timer"] {
            try "[Timer]\n".write(toFile: lib + "/" + unit, atomically: false, encoding: .utf8)
        }
        // Masked in /etc (an empty file, one of systemd's two ways): it never runs, so it is not named.
        try "".write(toFile: etc + "/masked.timer", atomically: false, encoding: .utf8)
        // systemd-cron's generator makes timers from crontabs, which --system reads itself.
        let notes = ConvertSources.timersLeftToSystemd(in: [etc, generator, lib], enabled: etc + "/timers.target.wants")
        #expect(notes == [
            "left to systemd: sysstat-collect.timer (started with sysstat.service); "
                + "agentctl convert \(lib)/sysstat-collect.timer converts it",
            "left to systemd: systemd-tmpfiles-clean.timer (linked into timers.target by its package in \(lib)); "
                + "agentctl convert \(lib)/systemd-tmpfiles-clean.timer converts it",
        ])
    }
}
