// SPDX-License-Identifier: Apache-2.0
@testable import AgentCore
import Testing

/// Issue 10 item 5: diagnostics, which every reader of the control socket sees, never quote a
/// file those readers could not read, never more than 80 bytes of a line, and a file that is
/// not a unit file at all is reported once.
struct ConfigDisclosureTests {
    static let secret = "hunter2-very-secret-token"
    let privateFile = FileFacts(ownerUID: 0, mode: 0o100600)

    func check(_ text: String, facts: FileFacts, path: String = "jobs.d/z.job",
               quotesPrivateFiles: Bool = false) -> [String] {
        var context = privilegedContext
        context.quotesPrivateFiles = quotesPrivateFiles
        let result = ConfigCheck.check(
            ConfigSource(relativePath: path, bytes: Array(text.utf8), facts: facts),
            context: context, facts: FakeFacts())
        return printed(result.diagnostics)
    }

    @Test func aShadowLikeFileIsReportedOnceAsNotAUnitFile() {
        let shadow = (0..<30).map { "user\($0):$6$\(Self.secret)$abc:19000:0:99999:7:::\n" }.joined()
        let messages = check(shadow, facts: FileFacts(ownerUID: 0, mode: 0o100640))
        #expect(messages == ["jobs.d/z.job: is not a unit file: no [Section] header in its first 4 KiB; "
                             + "put [Job] above its settings"])
    }

    @Test func aBinaryIsReportedOnce() {
        var elf: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00]
        elf += [UInt8](repeating: 0x41, count: 9000)
        let result = ConfigCheck.check(ConfigSource(relativePath: "jobs.d/z.job", bytes: elf, facts: rootFile),
                                       context: privilegedContext, facts: FakeFacts())
        #expect(printed(result.diagnostics) == [
            "jobs.d/z.job:1: is not a unit file: line 1 contains a NUL byte; config files must be UTF-8 "
                + "text in systemd's unit-file syntax, starting with [Job]"])
    }

    @Test func aPrivateFileWithSectionsIsReportedWithoutItsText() {
        let text = "[Job]\nIdentifier=local.x\nExec=/usr/lib/agentd/plugins/x\nInterval=\(Self.secret)\n"
            + "password=\(Self.secret)\n[\(Self.secret)]\n\(Self.secret)\n[Job\(Self.secret)\n"
        let messages = check(text, facts: privateFile)
        #expect(!messages.isEmpty)
        for message in messages {
            #expect(!message.contains("hunter2"), "\(message)")
        }
        #expect(messages.contains { $0.hasPrefix("jobs.d/z.job:7: is not a Key=Value assignment") })
        #expect(messages.allSatisfy { $0.contains("text not shown") })

        // Value errors keep the key and the problem.
        let values = check("[Job]\nIdentifier=local.x\nExec=/usr/lib/agentd/plugins/x\nInterval=\(Self.secret)\n"
                           + "\(Self.secret)=1\n[\(Self.secret)]\n", facts: privateFile)
        #expect(values.contains { $0.hasPrefix("jobs.d/z.job:4: Interval: \"…\" is not a time span") }, "\(values)")
        #expect(values.contains { $0.hasPrefix("jobs.d/z.job:5: warning: unknown key, ignored") }, "\(values)")
        #expect(values.contains { $0.hasPrefix("jobs.d/z.job:6: warning: unknown section, ignored") }, "\(values)")
        #expect(!values.contains { $0.contains("hunter2") }, "\(values)")
    }

    /// The drop-in header's hint quotes the words of the line (`Schedule="Mon 03:00"`): never
    /// for a private script, one bare word or several.
    @Test func aPrivateScriptsHeaderWordsAreNotQuotedInTheHint() {
        let text = "#!/bin/sh\n# agentd: Schedule=Mon \(Self.secret)\n# agentd: Retry=exponential \(Self.secret) 1h\necho\n"
        let messages = check(text, facts: FileFacts(ownerUID: 0, mode: 0o100700), path: "jobs.d/z")
        #expect(messages.count == 3, "\(messages)")  // the two lines, and Retry= refusing "exponential"
        for message in messages {
            #expect(!message.contains("hunter2"), "\(message)")
            #expect(message.contains("text not shown"), "\(message)")
        }
    }

    @Test func agentctlCheckQuotesWhatItsUserCouldRead() {
        let text = "[Job]\nIdentifier=local.x\nExec=/usr/lib/agentd/plugins/x\nInterval=\(Self.secret)\n"
        let messages = check(text, facts: privateFile, quotesPrivateFiles: true)
        #expect(messages.contains { $0.contains(Self.secret) })
    }

    @Test func aWorldReadableFileIsQuotedButNeverMoreThanEightyBytesOfALine() {
        let long = String(repeating: "é", count: 200)  // 2 bytes each
        let messages = check("[Job]\n\(long)\n", facts: rootFile)
        let message = messages.first { $0.contains("is not a Key=Value") }
        #expect(message != nil, "\(messages)")
        let quoted = message.flatMap { $0.split(separator: "\"").dropFirst().first } ?? ""
        #expect(quoted.utf8.count <= 80 + "…".utf8.count)
        #expect(quoted.hasSuffix("…"))
        let key = String(repeating: "K", count: 5000)
        let unknown = check("[Job]\nIdentifier=local.x\nExec=/usr/lib/agentd/plugins/x\n\(key)=1\n", facts: rootFile)
        #expect(unknown.allSatisfy { $0.utf8.count < 400 }, "\(unknown)")
    }

    @Test func aCommentOnlyOrEmptyFileIsLeftToTheParser() {
        #expect(UnitFileSniff.problem(Array("# nothing\n\n".utf8), expectedSection: "[Job]") == nil)
        #expect(UnitFileSniff.problem([], expectedSection: "[Job]") == nil)
        // A header after 4 KiB of comments is fine; text without one within 4 KiB is not.
        let comments = String(repeating: "# comment line\n", count: 400)
        #expect(UnitFileSniff.problem(Array((comments + "[Job]\n").utf8), expectedSection: "[Job]") == nil)
    }
}
