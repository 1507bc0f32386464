// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Issue 28 item 11: a per-user agent followed links another user controlled — a job file in its
/// config directory linked through another user's directory was registered and run, and a plugin
/// path through another user's directory let that user choose the binary. Now a linked job file
/// or a plugin is accepted only when every link and directory on the way (each link's target
/// resolved step by step) is owned by root or the agent's user and writable by no one else.
@Suite(.serialized) struct UserLinkSafetyTests {
    /// A directory owned by `uid` (mode 0755) under the session's root.
    private func directory(_ session: UserSession, _ name: String, owner: UInt32, group: UInt32) throws -> String {
        let path = session.root + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, 0o755)
        chown(path, owner, group)
        return path
    }

    /// A symbolic link at `path` to `target`, owned by `owner`.
    private func link(_ path: String, to target: String, owner: TestUser) {
        #expect(symlink(target, path) == 0, "symlink \(path): \(String(cString: strerror(errno)))")
        lchown(path, owner.uid, owner.gid)
    }

    private func diagnostics(_ session: UserSession) throws -> [String] {
        let status = try json(try session.ctl("--user", "status", "--json").stdout) as? [String: Any]
        let list = status?["diagnostics"] as? [[String: Any]] ?? []
        return list.map { "\($0["path"] ?? ""): \($0["message"] ?? "")" }
    }

    @Test func aJobFileLinkedThroughAnotherUsersDirectoryIsRefusedAndOneLinkedToRootsFileIsNot() throws {
        let alice = try TestUser()
        let bob = try TestUser()
        let session = try UserSession(user: alice)
        let plugin = try session.plugin("work", "echo PROGRESS=1/1\n")
        // Root's job files, in a directory of root's.
        let shipped = try directory(session, "shipped", owner: 0, group: 0)
        for name in ["linked", "direct"] {
            try "[Job]\nIdentifier=local.\(name)\nKind=continued\nExec=\(plugin)\n"
                .write(toFile: shipped + "/\(name).job", atomically: false, encoding: .utf8)
            chmod(shipped + "/\(name).job", 0o644)
        }
        // Bob's directory, with bob's link to one of them: bob chooses what alice's agent reads.
        let bobs = try directory(session, "bob", owner: bob.uid, group: bob.gid)
        link(bobs + "/linked.job", to: shipped + "/linked.job", owner: bob)

        let agent = try UserAgent(session)
        let jobs = session.configDirectory + "/jobs.d"
        link(jobs + "/linked.job", to: bobs + "/linked.job", owner: alice)
        link(jobs + "/direct.job", to: shipped + "/direct.job", owner: alice)
        try agent.waitForLog("registered local.direct")
        let line = try agent.waitForLog("unsafe: \(bobs)")
        let expected = "unsafe: \(bobs) (on the way to \(jobs)/linked.job) is owned by uid \(bob.uid), not root or the "
            + "agent's user \(alice.name) (uid \(alice.uid)); run chown \(alice.name) \(bobs), or keep the file "
            + "and every link to it in directories of root or \(alice.name)"
        #expect(line.contains(expected), "\(line)")
        #expect(try diagnostics(session).contains("jobs.d/linked.job: " + expected + "; then send agentd SIGHUP to read it again"))
        #expect(!agent.logLines.contains { $0.contains("registered local.linked") })
        let listed = try session.ctl("--user", "list", "--json")
        #expect(listed.stdout.contains("\"local.direct\"") && !listed.stdout.contains("\"local.linked\""), "\(listed.stdout)")
    }

    @Test func aPluginLinkThroughAnotherUsersDirectoryNeverRunsWhateverItLeadsTo() throws {
        let alice = try TestUser()
        let bob = try TestUser()
        let session = try UserSession(user: alice)
        // Root's plugin, in a directory of root's.
        let shipped = try directory(session, "shipped", owner: 0, group: 0)
        let real = shipped + "/tool"
        try "#!/bin/sh\necho PROGRESS=1/1\n".write(toFile: real, atomically: false, encoding: .utf8)
        chmod(real, 0o755)
        // Alice's Exec= names her own link, which leads through bob's link in bob's directory.
        let bobs = try directory(session, "bob", owner: bob.uid, group: bob.gid)
        link(bobs + "/tool", to: real, owner: bob)
        let named = session.home + "/tool"
        link(named, to: bobs + "/tool", owner: alice)
        let agent = try UserAgent(session)
        try session.write(session.configDirectory + "/jobs.d/tool.job",
                          "[Job]\nIdentifier=local.tool\nKind=continued\nExec=\(named)\n")
        try agent.waitForLog("registered local.tool")

        let refused = try session.ctl("--user", "submit", "local.tool", "--wait")
        #expect(refused.status != 0, "\(refused.stdout)\(refused.stderr)")
        let history = try json(try session.ctl("--user", "history", "local.tool", "--json").stdout) as? [[String: Any]]
        let expected = "spawn-failed(unsafe: \(bobs) (on the way to \(named)) is owned by uid \(bob.uid), not root or the "
            + "agent's user \(alice.name) (uid \(alice.uid)); run chown \(alice.name) \(bobs), or keep the file "
            + "and every link to it in directories of root or \(alice.name))"
        #expect(history?.first?["stopReason"] as? String == expected, "\(history ?? [])")

        // The advice as written: alice links to root's plugin directly.
        #expect(unlink(named) == 0)
        link(named, to: real, owner: alice)
        let ran = try session.ctl("--user", "submit", "local.tool", "--wait")
        #expect(ran.status == 0, "\(ran.stdout)\(ran.stderr)")
    }
}
