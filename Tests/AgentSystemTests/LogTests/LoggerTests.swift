// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import CShim
import Testing
@testable import AgentSystem

@Suite("Logger")
struct LoggerTests {
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test("syslog priority prefixes per level")
    func priorities() {
        let logger = Logger(minimumLevel: .debug)
        #expect(text(logger.format(.error, "e")) == "<3>e\n")
        #expect(text(logger.format(.warning, "w")) == "<4>w\n")
        #expect(text(logger.format(.notice, "n")) == "<5>n\n")
        #expect(text(logger.format(.info, "i")) == "<6>i\n")
        #expect(text(logger.format(.debug, "d")) == "<7>d\n")
    }

    @Test("embedded newlines and control characters are escaped: one event, one line")
    func escaping() {
        let logger = Logger()
        let line = text(logger.format(.info, "two\nlines\r\u{1B}[31m\ttab é"))
        #expect(line == "<6>two\\nlines\\r\\x1b[31m\ttab é\n")
        #expect(line.utf8.filter { $0 == 0x0A }.count == 1)
    }

    @Test("monotonic timestamp and prefix")
    func timestampAndPrefix() {
        let logger = Logger(timestamps: true, prefix: "[job run=7] ")
        #expect(text(logger.format(.notice, "started", monotonicNanoseconds: 3_000_120_999)) ==
                "<5>[mono=3.000120] [job run=7] started\n")
        #expect(text(logger.with(prefix: "x: ").format(.info, "m")) == "<6>[job run=7] x: m\n")
    }

    @Test("overlong messages are cut and marked, still one line")
    func truncation() {
        let logger = Logger(maxLineBytes: 100)
        let line = logger.format(.info, String(repeating: "\n", count: 500))
        #expect(line.count <= 100)
        #expect(line.last == 0x0A)
        #expect(line.filter { $0 == 0x0A }.count == 1)
        #expect(text(line).hasSuffix("…[truncated]\n"))
    }

    @Test("levels below the minimum are dropped; each line is one write")
    func writesToDescriptor() throws {
        var fds: [Int32] = [-1, -1]
        #expect(cshim_pipe_cloexec_nonblock(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let logger = Logger(minimumLevel: .info, fd: fds[1])
        logger.debug("hidden")
        logger.info("shown\nhere")
        logger.error("bad")
        #expect(!logger.isEnabled(.debug))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = read(fds[0], &buffer, buffer.count)
        #expect(text(Array(buffer[0..<max(0, n)])) == "<6>shown\\nhere\n<3>bad\n")
    }
}

@Suite("LogRateLimiter")
struct LogRateLimiterTests {
    let t0 = MonotonicInstant(nanoseconds: 1_000_000_000_000)

    @Test("N lines per interval pass, the rest are counted and reported with the next window")
    func limitsPerWindow() {
        var limiter = LogRateLimiter<String>(limit: 3, interval: .seconds(1))
        var decisions: [LogRateLimiter<String>.Admission] = []
        for i in 0..<10 {
            decisions.append(limiter.admit("a", now: t0 + .milliseconds(i * 10)))
        }
        #expect(decisions.prefix(3).allSatisfy { $0 == .emit(suppressedBefore: 0) })
        #expect(decisions.dropFirst(3).allSatisfy { $0 == .suppress })
        #expect(limiter.suppressedCount("a") == 7)
        // Still inside the window.
        #expect(limiter.admit("a", now: t0 + .milliseconds(999)) == .suppress)
        // The next window opens and carries the report.
        #expect(limiter.admit("a", now: t0 + .seconds(1)) == .emit(suppressedBefore: 8))
        #expect(limiter.admit("a", now: t0 + .milliseconds(1_001)) == .emit(suppressedBefore: 0))
        #expect(LogRateLimiter<String>.suppressedMessage(8) == "8 lines suppressed")
        #expect(LogRateLimiter<String>.suppressedMessage(1) == "1 line suppressed")
    }

    @Test("keys are independent")
    func keysIndependent() {
        var limiter = LogRateLimiter<Int>(limit: 1, interval: .seconds(5))
        #expect(limiter.admit(1, now: t0) == .emit(suppressedBefore: 0))
        #expect(limiter.admit(1, now: t0) == .suppress)
        #expect(limiter.admit(2, now: t0) == .emit(suppressedBefore: 0))
        #expect(limiter.finish(1) == 1)
        #expect(limiter.finish(2) == 0)
        #expect(limiter.trackedKeys == 0)
    }

    @Test("expire reports ended windows with suppressed lines and forgets all ended windows")
    func expireReports() {
        var limiter = LogRateLimiter<String>(limit: 1, interval: .seconds(2))
        _ = limiter.admit("quiet", now: t0)
        _ = limiter.admit("noisy", now: t0 + .seconds(1))
        _ = limiter.admit("noisy", now: t0 + .seconds(1))
        _ = limiter.admit("noisy", now: t0 + .seconds(1))
        #expect(limiter.nextReportDeadline == t0 + .seconds(3))
        #expect(limiter.expire(now: t0 + .seconds(2)).isEmpty)  // only "quiet" ended: nothing to say
        #expect(limiter.trackedKeys == 1)
        let reports = limiter.expire(now: t0 + .seconds(3))
        #expect(reports.map(\.key) == ["noisy"])
        #expect(reports.map(\.suppressed) == [2])
        #expect(limiter.trackedKeys == 0)
        #expect(limiter.nextReportDeadline == nil)
        // After expiry, the next line is not told about the already reported count.
        #expect(limiter.admit("noisy", now: t0 + .seconds(4)) == .emit(suppressedBefore: 0))
    }
}

@Suite("Logger on a terminal")
struct HumanLoggerTests {
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func aTerminalLineStartsWithLocalTimeAndTheLevelWordNotAPriorityPrefix() {
        let logger = Logger(minimumLevel: .debug, prefix: "[local.a r000001] ", style: .human)
        #expect(text(logger.formatHuman(.warning, "two\nlines", localTime: "Dec 02 08:40:12.345")) ==
                "Dec 02 08:40:12.345 warning: [local.a r000001] two\\nlines\n")
        #expect(text(logger.formatHuman(.error, "e", localTime: "T")) == "T error: [local.a r000001] e\n")
    }

    /// date(1) is the oracle: the same instant in the process's own zone (the test never
    /// changes TZ: other suites run in this process at the same time).
    @Test func theLocalTimeIsWhatDateSaysForTheSameInstant() throws {
        let seconds = 1_764_664_812
        let output = Process()
        output.executableURL = URL(fileURLWithPath: "/bin/date")
        output.arguments = ["-d", "@\(seconds)", "+%b %d %H:%M:%S"]
        let pipe = Pipe()
        output.standardOutput = pipe
        try output.run()
        output.waitUntilExit()
        let expected = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(HumanLogTime.text(seconds: seconds, milliseconds: 5) == expected + ".005")
        #expect(HumanLogTime.text(seconds: seconds, milliseconds: 345) == expected + ".345")
    }

    @Test func aPipeOrTheJournalKeepsThePriorityPrefix() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        #expect(Logger.humanStyleFits(journal: false, fd: fds[1]) == false)
        #expect(Logger.humanStyleFits(journal: true, fd: fds[1]) == false)
    }
}
