// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing
@testable import AgentSystem

/// A run's own sandbox on the real kernel (DESIGN §3, issue 26 item 2): applied in the child
/// before exec, in a mount namespace of its own that never reaches the machine.
@Suite(.serialized) struct ProcessSandboxTests {
    typealias Outcome = ShellChild.Outcome

    static func run(_ script: String, sandbox: ProcessSandbox) throws -> Outcome {
        try ShellChild.run(script) { $0.sandbox = sandbox }
    }

    static func scratch(_ name: String) throws -> String {
        let path = "/var/tmp/agentd-sandbox-\(getpid())-\(name)"
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path + "/rw", withIntermediateDirectories: true)
        return path
    }

    @Test(.enabled(if: getuid() == 0, "needs root: mount namespaces"))
    func readOnlyPathsRefuseWritesButReadWritePathsInsideThemAccept() throws {
        let tree = try Self.scratch("ro")
        defer { try? FileManager.default.removeItem(atPath: tree) }
        var sandbox = ProcessSandbox()
        sandbox.readOnlyPaths = [tree]
        sandbox.readWritePaths = [tree + "/rw"]
        let outcome = try Self.run("touch \(tree)/no 2>/dev/null && echo wrote-ro; touch \(tree)/rw/yes && echo wrote-rw", sandbox: sandbox)
        #expect(outcome.failure == nil)
        #expect(outcome.output == "wrote-rw\n")
        #expect(!FileManager.default.fileExists(atPath: tree + "/no"))
        #expect(FileManager.default.fileExists(atPath: tree + "/rw/yes"))
        // The agent's own view is untouched: nothing leaked out of the child's namespace.
        #expect(FileManager.default.createFile(atPath: tree + "/outside", contents: nil))
    }

    @Test(.enabled(if: getuid() == 0, "needs root: mount namespaces"))
    func privateTmpIsAFreshTmpfsNobodyElseSees() throws {
        var sandbox = ProcessSandbox()
        sandbox.privateTmpPaths = ["/tmp"]
        let marker = "agentd-private-\(getpid())"
        let outcome = try Self.run("ls /tmp | wc -l; touch /tmp/\(marker) && echo made", sandbox: sandbox)
        #expect(outcome.output == "0\nmade\n", "\(outcome)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/" + marker))
    }

    @Test(.enabled(if: getuid() == 0, "needs root: mount namespaces"))
    func inaccessiblePathsShowNothingOfWhatIsThere() throws {
        let tree = try Self.scratch("hidden")
        defer { try? FileManager.default.removeItem(atPath: tree) }
        try "secret".write(toFile: tree + "/rw/secret", atomically: false, encoding: .utf8)
        var sandbox = ProcessSandbox()
        sandbox.inaccessiblePaths = [tree + "/rw"]
        let outcome = try Self.run("cat \(tree)/rw/secret 2>/dev/null || echo hidden", sandbox: sandbox)
        #expect(outcome.output == "hidden\n")
    }

    @Test(.enabled(if: getuid() == 0, "needs root: network namespaces"))
    func privateNetworkHasOnlyLoopbackUp() throws {
        var sandbox = ProcessSandbox()
        sandbox.privateNetwork = true
        let outcome = try Self.run("tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; cat /sys/class/net/lo/operstate 2>/dev/null; grep -c . /proc/net/route", sandbox: sandbox)
        let lines = outcome.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "lo", "\(outcome)")
        #expect(lines.count >= 2 && lines[lines.count - 1] == "1", "no route but the header: \(outcome)")
    }

    @Test func noNewPrivilegesIsSetForThePluginOnly() throws {
        var sandbox = ProcessSandbox()
        sandbox.noNewPrivileges = true
        let outcome = try Self.run("grep NoNewPrivs /proc/self/status", sandbox: sandbox)
        #expect(outcome.output.contains("NoNewPrivs:\t1"), "\(outcome)")
        let plain = try Self.run("grep NoNewPrivs /proc/self/status", sandbox: ProcessSandbox())
        #expect(plain.output.contains("NoNewPrivs:\t0"), "not inherited from anything: \(plain)")
    }

    @Test(.enabled(if: getuid() == 0, "needs root: mount namespaces"))
    func aMissingReadWritePathIsASpawnFailureNamingIt() throws {
        var sandbox = ProcessSandbox()
        sandbox.readWritePaths = ["/nonexistent/agentd-\(getpid())"]
        let outcome = try Self.run("echo ran", sandbox: sandbox)
        let failure = try #require(outcome.failure)
        #expect(failure.described(with: sandbox) == "ReadWritePaths=/nonexistent/agentd-\(getpid()): No such file or directory")
        #expect(outcome.output == "")
    }
}
