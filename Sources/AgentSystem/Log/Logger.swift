// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim

/// Writes one line per event to a file descriptor (stderr by default) with a syslog priority prefix,
/// so that journald files each line at its level (`<3>` err … `<7>` debug; sd-daemon(3)).
///
/// Each line goes out in a single `write(2)`, so lines of several threads never interleave (a pipe
/// guarantees that up to PIPE_BUF bytes; longer lines are capped at `maxLineBytes`). Newlines and
/// other control characters in a message are escaped (`\n`, `\r`, `\xNN`), so one event is always
/// one line — also for text that came from a plugin. Cheap to copy and `Sendable`.
///
/// With `journal` set (the agent sets it when its stderr is the journal: `Logger.stderrIsJournal`)
/// each line goes to journald in its native protocol instead (`JournalProtocol`: what
/// `sd_journal_sendv` sends, without libsystemd), as `MESSAGE=` (the same text, without the `<N>`
/// prefix) with `PRIORITY=`, `SYSLOG_IDENTIFIER=agentd` and the line's ``LogFields``; if journald
/// refuses it, the line goes to `fd` as usual.
public struct Logger: Sendable {
    /// A syslog priority.
    public enum Level: Int32, Sendable, Comparable, CaseIterable {
        case error = 3
        case warning = 4
        case notice = 5
        case info = 6
        case debug = 7

        /// Lower raw values are more severe; `a < b` means a is *less* severe than b.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue > rhs.rawValue }

        /// The word a person reads in place of `<N>`.
        public var word: String {
            switch self {
            case .error: return "error"
            case .warning: return "warning"
            case .notice: return "notice"
            case .info: return "info"
            case .debug: return "debug"
            }
        }
    }

    /// How a line starts: `<N>` for journald and pipes (sd-daemon(3)), or local time and the level
    /// word for a person watching a terminal (`Dec 02 08:40:12.345 warning: …`).
    public enum LineStyle: Sendable {
        case priorityPrefix
        case human
    }

    /// Messages less severe than this are dropped.
    public var minimumLevel: Level
    /// Prefix every line with `[mono=<seconds.micros>] ` (CLOCK_MONOTONIC), for benchmarks.
    public var timestamps: Bool
    /// Text put before every message, e.g. `"[com.example.refresh run=42] "`.
    public var prefix: String
    /// The descriptor written to.
    public let fd: Int32
    /// Longest line written, prefix included; longer messages are cut and marked `…[truncated]`.
    public var maxLineBytes: Int
    /// Send lines to journald (native protocol, with fields) rather than to `fd`.
    public var journal: Bool
    /// How lines written to `fd` start (the journal always gets its priority as a field).
    public var style: LineStyle

    public init(minimumLevel: Level = .info, timestamps: Bool = false, prefix: String = "",
                fd: Int32 = 2, maxLineBytes: Int = 16_384, journal: Bool = false,
                style: LineStyle = .priorityPrefix) {
        self.journal = journal
        self.style = style
        self.minimumLevel = minimumLevel
        self.timestamps = timestamps
        self.prefix = prefix
        self.fd = fd
        self.maxLineBytes = max(64, maxLineBytes)
    }

    /// A copy whose lines carry `prefix` after this logger's own prefix.
    public func with(prefix more: String) -> Logger {
        var copy = self
        copy.prefix += more
        return copy
    }

    /// Whether a message at `level` would be written.
    public func isEnabled(_ level: Level) -> Bool {
        level >= minimumLevel
    }

    public func error(_ message: @autoclosure () -> String, fields: LogFields = .none) { log(.error, message(), fields: fields) }
    public func warning(_ message: @autoclosure () -> String, fields: LogFields = .none) { log(.warning, message(), fields: fields) }
    public func notice(_ message: @autoclosure () -> String, fields: LogFields = .none) { log(.notice, message(), fields: fields) }
    public func info(_ message: @autoclosure () -> String, fields: LogFields = .none) { log(.info, message(), fields: fields) }
    public func debug(_ message: @autoclosure () -> String, fields: LogFields = .none) { log(.debug, message(), fields: fields) }

    /// Writes `message` at `level` as one line; `fields` go along only to the journal.
    public func log(_ level: Level, _ message: @autoclosure () -> String, fields: LogFields = .none) {
        guard isEnabled(level) else { return }
        let text = message()
        let monotonic = timestamps ? cshim_monotonic_ns() : nil
        if journal {
            let line = format(level, text, monotonicNanoseconds: monotonic)
            if JournalProtocol.send(journalEntry(level, line: line, fields: fields)) { return }
        }
        switch style {
        case .priorityPrefix: write(format(level, text, monotonicNanoseconds: monotonic))
        case .human: write(formatHuman(level, text, localTime: HumanLogTime.now(), monotonicNanoseconds: monotonic))
        }
    }

    /// Whether lines should be written for a person: stderr is a terminal and not the journal.
    public static func humanStyleFits(journal: Bool, fd: Int32 = 2) -> Bool {
        !journal && isatty(fd) == 1
    }

    /// A line for a terminal: `localTime` (e.g. `Dec 02 08:40:12.345`), the level word, the
    /// message — escaped and capped exactly as `format` does. Exposed for tests.
    public func formatHuman(_ level: Level, _ message: String, localTime: String,
                            monotonicNanoseconds: UInt64? = nil) -> [UInt8] {
        let prefixed = format(level, message, monotonicNanoseconds: monotonicNanoseconds)
        return Array("\(localTime) \(level.word): ".utf8) + prefixed.dropFirst(3)
    }

    /// The journal entry of a formatted line: `MESSAGE=` (the line without `<N>` and newline),
    /// `PRIORITY=`, `SYSLOG_IDENTIFIER=agentd`, then the fields. Exposed for tests.
    public func journalEntry(_ level: Level, line: [UInt8], fields: LogFields) -> [[UInt8]] {
        let text = line.dropFirst(3).dropLast()
        var entry: [[UInt8]] = [Array("MESSAGE=".utf8) + text, Array("PRIORITY=\(level.rawValue)".utf8),
                                Array("SYSLOG_IDENTIFIER=agentd".utf8)]
        // Field values are ours (identifiers, run ids, stop reasons): no newline to escape, but
        // a stop reason's spawn-failure text may carry anything; keep it on one line.
        for field in fields.journalFields {
            var bytes: [UInt8] = []
            for byte in field.utf8 { Logger.appendEscaped(byte, to: &bytes) }
            entry.append(bytes)
        }
        return entry
    }

    /// Whether this process's stderr is the journal: systemd sets `JOURNAL_STREAM=DEV:INODE` for
    /// a service whose stderr goes to journald (systemd.exec(5)), and the descriptor must still be
    /// that stream — a child whose stderr was redirected (a pipe, a file: the tests) inherits the
    /// variable but not the stream. The journal socket must exist too.
    public static func stderrIsJournal(journalStream: String?, fd: Int32 = 2,
                                       socket: String = JournalProtocol.socketPath) -> Bool {
        guard let value = journalStream else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode && access(socket, F_OK) == 0
    }

    /// The bytes of one line, `\n` included. Exposed for tests.
    public func format(_ level: Level, _ message: String, monotonicNanoseconds: UInt64? = nil) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(min(maxLineBytes, message.utf8.count + prefix.utf8.count + 40))
        line.append(0x3C)  // <
        line.append(0x30 + UInt8(level.rawValue))
        line.append(0x3E)  // >
        if let ns = monotonicNanoseconds {
            line.append(contentsOf: "[mono=\(MonotonicInstant(nanoseconds: ns))] ".utf8)
        }
        // Worst case an escaped byte takes 4; keep room for the marker and "\n".
        let marker = Array("…[truncated]".utf8)
        let budget = maxLineBytes - 1 - marker.count - 4
        var truncated = false
        for part in [prefix, message] where !truncated {
            for byte in part.utf8 {
                if line.count > budget {
                    truncated = true
                    break
                }
                Logger.appendEscaped(byte, to: &line)
            }
        }
        if truncated { line.append(contentsOf: marker) }
        line.append(0x0A)
        return line
    }

    static func appendEscaped(_ byte: UInt8, to line: inout [UInt8]) {
        switch byte {
        case 0x0A:
            line.append(0x5C); line.append(0x6E)  // \n
        case 0x0D:
            line.append(0x5C); line.append(0x72)  // \r
        case 0x09:
            line.append(byte)
        case 0x00..<0x20, 0x7F:
            let hex = Array("0123456789abcdef".utf8)
            line.append(0x5C); line.append(0x78)  // \x
            line.append(hex[Int(byte >> 4)])
            line.append(hex[Int(byte & 0x0F)])
        default:
            line.append(byte)
        }
    }

    private func write(_ line: [UInt8]) {
        line.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(fd, base + offset, raw.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return  // EAGAIN, EPIPE, closed stderr: a log line is not worth blocking for
                }
            }
        }
    }
}
