// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing

/// DESIGN §9, "long answers are paged": a user other than root, whose answers the agent holds at
/// most 256 KiB of, lists and sees pending every job of a machine with 1,500 of them (about
/// 400 KiB of `list` JSON; one answer went over the limit at about 1,000 jobs).
@Suite(.serialized) struct LongAnswerPagingTests {
    static let jobs = 1_500

    @Test(.enabled(if: getuid() == 0, "needs root: the reader runs as nobody"),
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs setpriv (util-linux)"))
    func anotherUserListsAndSeesPendingEveryJobOfAThousandAndMore() throws {
        let sandbox = try Sandbox()
        // Each waits for its next New Year: nothing runs, each one is pending.
        for number in 1...Self.jobs {
            let name = String(format: "job%05d", number)
            try sandbox.write("jobs.d/\(name).job", """
                [Job]
                Identifier=local.\(name)
                Kind=processing
                Exec=\(sandbox.pluginPath) --a-long-argument-that-makes-the-answer-longer \(name)
                Schedule=*-01-01 00:00
                RequiresNetwork=yes

                """)
        }
        let agent = try AgentProcess(sandbox: sandbox)
        defer { agent.stop() }
        chmod(sandbox.root, 0o755)  // nobody reaches the socket (0666) through it
        let expected = (1...Self.jobs).map { String(format: "local.job%05d", $0) }

        let listed = try Self.asNobody(sandbox, "list", "--json")
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.utf8.count > 300 << 10, "the whole list is longer than one answer may be")
        let ids = (try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? [])
            .compactMap { $0["identifier"] as? String }
        #expect(ids == expected, "\(ids.count) listed, \(Set(ids).count) distinct")

        let table = try Self.asNobody(sandbox, "list", "--files")
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.split(separator: "\n").filter { $0.hasPrefix("local.job") }.count == Self.jobs)

        let pending = try Self.asNobody(sandbox, "pending", "--json")
        #expect(pending.status == 0, "\(pending.stderr)")
        let waiting = (try JSONSerialization.jsonObject(with: Data(pending.stdout.utf8)) as? [[String: Any]] ?? [])
            .compactMap { $0["identifier"] as? String }
        #expect(Set(waiting) == Set(expected) && waiting.count == Self.jobs, "\(waiting.count) pending")

        // metrics too: nobody reads its figures in 64 KiB pages, root in one; the text is the same.
        let paged = try Self.asNobody(sandbox, "metrics")
        let whole = try agent.ctl("metrics")
        #expect(paged.status == 0 && whole.status == 0, "\(paged.stderr) \(whole.stderr)")
        #expect(paged.stdout == whole.stdout)
        #expect(paged.stdout.contains("local.job01500"), "the last page's jobs are there")
    }

    private static func asNobody(_ sandbox: Sandbox, _ arguments: String...) throws -> CommandResult {
        try runCommand("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups",
                                            Binaries.agentctl, "--socket", sandbox.socketPath] + arguments)
    }
}
