// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Directives on stdout, messages on stderr, each a whole line in one write(2): stdout is a pipe to
/// the agent, and stdio's buffering would hold a PROGRESS= line back until the buffer filled.
enum Output {
    static func directive(_ line: String) {
        writeLine(line, to: 1)
    }

    /// A log line on stderr. Callers pass URLs through RedactedURL first.
    static func message(_ line: String) {
        writeLine("transfer: " + line, to: 2)
    }

    private static func writeLine(_ line: String, to descriptor: Int32) {
        var bytes = Array(line.utf8)
        bytes.append(10)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }  // the agent is gone; nothing more to tell it
            offset += written
        }
    }
}
