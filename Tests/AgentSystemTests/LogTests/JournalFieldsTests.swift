// SPDX-License-Identifier: Apache-2.0
import AgentSystem
import Foundation
import Glibc
import Testing

/// Issue #16 item 2: the journal entry a log line becomes, and when the agent sends to the journal.
/// JournalFieldsIntegrationTests reads the same fields back from a journal a real systemd-journald
/// wrote (where root and journald are available).
struct JournalFieldsTests {
    func text(_ entry: [[UInt8]]) -> [String] { entry.map { String(decoding: $0, as: UTF8.self) } }

    @Test func aRunEndCarriesItsIdentifierRunIDStopReasonAndMessageID() {
        let logger = Logger(journal: true)
        let fields = LogFields(.runEnded, identifier: "com.example.photos.cleanup", runID: "r000042",
                               stopReason: "failure(exit 3)")
        let line = logger.format(.info, "run r000042 of com.example.photos.cleanup ended: failure(exit 3) after 1.0 s")
        #expect(text(logger.journalEntry(.info, line: line, fields: fields)) == [
            "MESSAGE=run r000042 of com.example.photos.cleanup ended: failure(exit 3) after 1.0 s",
            "PRIORITY=6",
            "SYSLOG_IDENTIFIER=agentd",
            "MESSAGE_ID=96b664571be54d06981768a608fc2305",
            "AGENTD_IDENTIFIER=com.example.photos.cleanup",
            "AGENTD_RUN_ID=r000042",
            "AGENTD_STOP_REASON=failure(exit 3)",
        ])
    }

    @Test func aLineWithoutFieldsIsMessageAndPriorityOnly() {
        let logger = Logger(journal: true)
        let entry = text(logger.journalEntry(.error, line: logger.format(.error, "boom"), fields: .none))
        #expect(entry == ["MESSAGE=boom", "PRIORITY=3", "SYSLOG_IDENTIFIER=agentd"])
    }

    @Test func aPluginLineStaysOneLineInTheJournalToo() {
        let logger = Logger(journal: true)
        let line = logger.format(.info, "[local.a r000001] two\nlines")
        let entry = text(logger.journalEntry(.info, line: line, fields: LogFields(.pluginOutput, identifier: "local.a", runID: "r000001")))
        #expect(entry.first == "MESSAGE=[local.a r000001] two\\nlines")
        #expect(entry.contains("MESSAGE_ID=b19063d34c514d7fb3f548b19ddeb2c9"))
    }

    @Test func aSpawnFailureTextWithANewlineCannotAddAField() {
        let fields = LogFields(.runEnded, stopReason: "spawn-failed(bad\nAGENTD_RUN_ID=forged)")
        let entry = text(Logger(journal: true).journalEntry(.info, line: Array("<6>x\n".utf8), fields: fields))
        #expect(entry.filter { $0.hasPrefix("AGENTD_RUN_ID=") }.isEmpty)
        #expect(entry.last == "AGENTD_STOP_REASON=spawn-failed(bad\\nAGENTD_RUN_ID=forged)")
    }

    @Test func theMessageIDsAreFixedDistinct128BitIDs() {
        let ids = LogMessageID.allCases.map(\.rawValue)
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) && $0 == $0.lowercased() })
        #expect(LogMessageID.runStarted.rawValue == "10921d5ab3e64916b415d4ecdf125067")
        #expect(LogMessageID.configError.rawValue == "df5ae662d13e44b59e488883abe19d7d")
    }

    @Test func stderrLinesAreTheSameWithOrWithoutFields() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let logger = Logger(fd: fds[1])
        logger.info("run r000001 of local.a started (simulated, pid 7)", fields: LogFields(.runStarted, identifier: "local.a", runID: "r000001"))
        close(fds[1])
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(fds[0], &buffer, buffer.count)
        #expect(String(decoding: buffer[0..<max(0, count)], as: UTF8.self) == "<6>run r000001 of local.a started (simulated, pid 7)\n")
    }

    @Test func theJournalIsUsedOnlyWhenStderrIsTheStreamJournalStreamNames() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stream = directory + "/stderr", socket = directory + "/socket"
        let fd = open(stream, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        #expect(fd >= 0)
        defer { close(fd) }
        var info = stat()
        #expect(fstat(fd, &info) == 0)
        let matching = "\(info.st_dev):\(info.st_ino)"
        // No socket yet: stderr to the journal's stream, but journald is not listening.
        #expect(!Logger.stderrIsJournal(journalStream: matching, fd: fd, socket: socket))
        #expect(FileManager.default.createFile(atPath: socket, contents: nil))
        #expect(Logger.stderrIsJournal(journalStream: matching, fd: fd, socket: socket))
        // Inherited from a service but redirected (a test's pipe or file): stderr is another stream.
        #expect(!Logger.stderrIsJournal(journalStream: "\(info.st_dev):\(info.st_ino + 1)", fd: fd, socket: socket))
        #expect(!Logger.stderrIsJournal(journalStream: nil, fd: fd, socket: socket))
        #expect(!Logger.stderrIsJournal(journalStream: "garbage", fd: fd, socket: socket))
    }
}
