// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing
@testable import AgentSystem

/// PluginSafety on real files: the spawn-time check (DESIGN §3).
@Suite struct PluginSafetyCheckTests {
    private let safety = PluginSafety(agentUID: geteuid(), agentUserName: "agent")

    /// A private directory under /tmp (sticky, root-owned: accepted) holding one plugin.
    private func plugin(_ body: String = "#!/bin/sh\nexit 0\n", mode: mode_t = 0o755) throws -> (root: String, path: String) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("safety-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        chmod(root, 0o755)
        let path = root + "/plugin"
        try body.write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, mode)
        return (root, path)
    }

    @Test func aSafeScriptIsHeldOpenAndExecutedByName() throws {
        let (root, path) = try plugin()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let checked = try safety.check(path).get()
        #expect(checked.descriptor >= 0)
        #expect(!checked.runsThroughDescriptor, "a #! script is exec'd by name")
    }

    @Test func anELFBinaryRunsThroughItsDescriptor() throws {
        let checked = try safety.check("/bin/true").get()
        #expect(checked.runsThroughDescriptor)
    }

    @Test func aWorldWritablePluginIsRefused() throws {
        let (root, path) = try plugin(mode: 0o757)
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(throws: PluginRefusal(message: "unsafe: \(path) is world-writable; run chmod o-w \(path)")) {
            try safety.check(path).get()
        }
    }

    @Test func aMissingPluginSaysSoAsExecWould() throws {
        #expect(throws: PluginRefusal(message: "No such file or directory")) {
            try safety.check("/nonexistent/plugin").get()
        }
    }

    @Test func aGroupWritableDirectoryAboveIsRefused() throws {
        let (root, path) = try plugin()
        defer { try? FileManager.default.removeItem(atPath: root) }
        chmod(root, 0o775)
        #expect(throws: PluginRefusal(message: "unsafe: \(root) (above \(path)) is group-writable; run chmod g-w \(root)")) {
            try safety.check(path).get()
        }
    }
}
