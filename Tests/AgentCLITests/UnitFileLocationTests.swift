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

    @Test func aUnitOutsideSystemdsDirectoriesIsReadWithWhatIsBesideItOnly() {
        #expect(UnitFileLocation.directories(beside: "/lib/systemd/system") == UnitFileLocation.systemDirectories)
        #expect(UnitFileLocation.directories(beside: root) == [root])
        try? FileManager.default.removeItem(atPath: root)
    }
}
