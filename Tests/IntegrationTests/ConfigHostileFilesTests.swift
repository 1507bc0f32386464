// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Issue 10 items 5, 9 and 11: files in the config directory that are not what they claim to be
/// (a link to a secret, a binary, a FIFO, a chain cycle) are refused with one clear diagnostic,
/// never leak their content to socket readers, and never block the agent.
@Suite(.serialized) struct ConfigHostileFilesTests {
    static let secret = "s3cr3t-HASH-do-not-show"

    func diagnostics(_ agent: AgentProcess) throws -> [String] {
        let status = try agent.ctl("status", "--json")
        let list = (try json(status.stdout) as? [String: Any])?["diagnostics"] as? [[String: Any]] ?? []
        return list.map { "\($0["path"] ?? ""):\($0["line"] ?? ""): \($0["message"] ?? "")" }
    }

    /// A root-only file, as /etc/shadow is, outside the config directory.
    func privateFile(_ sandbox: Sandbox, _ name: String, _ text: String, mode: mode_t = 0o600) throws -> String {
        let path = sandbox.root + "/" + name
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, mode)
        return path
    }

    @Test func aSymlinkToAShadowFileNeverShowsItsLines() throws {
        let sandbox = try Sandbox()
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("ready:")
        let shadow = try privateFile(sandbox, "shadow",
            (0..<40).map { "user\($0):$6$\(Self.secret)$x:19000:0:99999:7:::\n" }.joined())
        // And one with sections, so that the parser gets to read it line by line.
        let ini = try privateFile(sandbox, "credentials",
            "[Job]\nIdentifier=local.creds\nExec=\(sandbox.pluginPath)\nInterval=\(Self.secret)\n"
            + "aws_secret_access_key=\(Self.secret)\n\(Self.secret)\n")
        symlink(shadow, sandbox.jobsDirectory + "/z.job")
        symlink(ini, sandbox.jobsDirectory + "/y.job")
        try agent.waitForLog("jobs.d/z.job")
        try agent.waitForLog("jobs.d/y.job")

        let shown = try diagnostics(agent)
        #expect(shown.filter { $0.hasPrefix("jobs.d/z.job") }
                == ["jobs.d/z.job:: is not a unit file: no [Section] header in its first 4 KiB; put [Job] above its settings"])
        #expect(shown.contains { $0.hasPrefix("jobs.d/y.job:6: is not a Key=Value assignment") && $0.contains("text not shown") }, "\(shown)")
        let everything = try agent.ctl("status", "--json").stdout + agent.logLines.joined(separator: "\n")
        #expect(!everything.contains(Self.secret))
    }

    @Test func aWorldReadableFileBehindAPrivateDirectoryIsNotQuotedEither() throws {
        let sandbox = try Sandbox()
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("ready:")
        let hidden = sandbox.root + "/private"
        try FileManager.default.createDirectory(atPath: hidden, withIntermediateDirectories: false)
        chmod(hidden, 0o700)
        let path = hidden + "/settings"
        try "[Job]\nIdentifier=local.p\nExec=\(sandbox.pluginPath)\nKind=\(Self.secret)\n".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o644)
        symlink(path, sandbox.jobsDirectory + "/p.job")
        try agent.waitForLog("jobs.d/p.job:4")
        let shown = try diagnostics(agent).filter { $0.hasPrefix("jobs.d/p.job") }
        #expect(shown.contains { $0.hasPrefix("jobs.d/p.job:4: Kind:") }, "\(shown)")
        #expect(!shown.contains { $0.contains(Self.secret) }, "\(shown)")
    }

    /// Issue 28 item 11, for the system agent: a job file linked through a directory another
    /// user owns is refused (that user could choose which file is read), naming the directory,
    /// its owner and the cure; the cure as written lets it in.
    @Test func aJobFileLinkedThroughAnotherUsersDirectoryIsRefusedUntilTheCure() throws {
        let sandbox = try Sandbox()
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("ready:")
        let theirs = sandbox.root + "/theirs"
        try FileManager.default.createDirectory(atPath: theirs, withIntermediateDirectories: false)
        chmod(theirs, 0o755)
        chown(theirs, 65534, 65534)
        try "[Job]\nIdentifier=local.linked\nExec=\(sandbox.pluginPath)\n".write(toFile: theirs + "/x.job", atomically: false, encoding: .utf8)
        chmod(theirs + "/x.job", 0o644)
        symlink(theirs + "/x.job", sandbox.jobsDirectory + "/linked.job")
        let path = sandbox.jobsDirectory + "/linked.job"
        try agent.waitForLog("jobs.d/linked.job: unsafe: \(theirs) (on the way to \(path)) is owned by uid 65534, not root; run chown root \(theirs)")
        #expect(try listedJobs(agent)["local.linked"] == nil)

        let mark = agent.logLines.count
        #expect(try runCommand("/bin/sh", ["-c", "chown root \(theirs)"]).status == 0)
        // A change on the way to the file is no event in jobs.d: SIGHUP re-reads everything.
        kill(agent.process.processIdentifier, SIGHUP)
        try agent.waitForLog("registered local.linked", after: mark)
    }

    @Test func aBinaryIsReportedOnce() throws {
        let sandbox = try Sandbox()
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("ready:")
        let binary = try Data(contentsOf: URL(fileURLWithPath: "/bin/true"))
        try binary.write(to: URL(fileURLWithPath: sandbox.jobsDirectory + "/true.job"))
        chmod(sandbox.jobsDirectory + "/true.job", 0o644)
        try agent.waitForLog("jobs.d/true.job")
        let shown = try diagnostics(agent).filter { $0.hasPrefix("jobs.d/true.job") }
        #expect(shown.count == 1, "\(shown)")
        #expect(shown.first?.contains("is not a unit file") == true, "\(shown)")
    }

    @Test func aFifoMadeInPlaceIsReportedAndBlocksNothing() throws {
        let sandbox = try Sandbox()
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("ready:")
        #expect(mkfifo(sandbox.jobsDirectory + "/pipe.job", 0o644) == 0)
        #expect(mkfifo(sandbox.configDirectory + "/agentd.conf", 0o644) == 0)
        try agent.waitForLog("jobs.d/pipe.job: cannot be read: not a regular file (a FIFO)")
        try agent.waitForLog("agentd.conf: cannot be read: not a regular file (a FIFO)")
        // Still answering and still watching.
        try sandbox.write("jobs.d/after.job", sandbox.jobFile("after"))
        try agent.waitForLog("registered local.after")
        #expect(try agent.ctl("status").status == 0)
    }

    @Test func anOnSuccessCycleIsRefusedAtLoadWithFileAndLine() throws {
        let sandbox = try Sandbox()
        func chain(_ name: String, _ next: String) -> String {
            "[Job]\nIdentifier=local.\(name)\nKind=processing\nExec=\(sandbox.pluginPath)\nOnSuccess=local.\(next)\n"
        }
        try sandbox.write("jobs.d/a.job", chain("a", "b"))
        try sandbox.write("jobs.d/b.job", chain("b", "a"))
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("jobs.d/b.job:5: OnSuccess= forms a cycle: local.b → local.a → local.b")
        #expect(try diagnostics(agent).contains { $0.hasPrefix("jobs.d/b.job:5: OnSuccess= forms a cycle") })
        // Not registered, but listed with where its error is (it does not vanish).
        #expect(try listedJobs(agent)["local.b"]?["state"] as? String == "error (jobs.d/b.job:5)")

        // Breaking the cycle in a.job lets b.job in.
        let mark = agent.logLines.count
        try sandbox.write("jobs.d/a.job", sandbox.jobFile("a"))
        try agent.waitForLog("registered local.b", after: mark)
    }
}
