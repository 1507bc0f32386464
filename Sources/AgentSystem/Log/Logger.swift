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

    public init(minimumLevel: Level = .info, timestamps: Bool = false, prefix: String = "",
                fd: Int32 = 2, maxLineBytes: Int = 16_384) {
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

    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func notice(_ message: @autoclosure () -> String) { log(.notice, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }

    /// Writes `message` at `level` as one line.
    public func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard isEnabled(level) else { return }
        let line = format(level, message(), monotonicNanoseconds: timestamps ? cshim_monotonic_ns() : nil)
        write(line)
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

    private static func appendEscaped(_ byte: UInt8, to line: inout [UInt8]) {
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
