// SPDX-License-Identifier: Apache-2.0
/// A first look at a file's start, before it is parsed line by line: a file that is plainly not
/// a unit file (a binary, `/etc/shadow` linked in by mistake) gets one diagnostic instead of one
/// per line.
enum UnitFileSniff {
    /// How much of the file is looked at.
    static let window = 4096

    /// Why the file is not a unit file, or nil when it may be one. Only the first `window` bytes
    /// count: a NUL byte or a non-comment line that is not UTF-8 there, or no `[Section]` header
    /// there although there is text. (An empty or comment-only file is left to the parser.)
    static func problem(_ bytes: [UInt8], expectedSection: String) -> ConfigDiagnostic? {
        let end = min(bytes.count, window)
        let text = "config files must be UTF-8 text in systemd's unit-file syntax, starting with \(expectedSection)"
        var start = 0
        if end >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
        var sawText = false
        var sawHeader = false
        var line = 0
        while start < end {
            line += 1
            var lineEnd = start
            while lineEnd < end, bytes[lineEnd] != TextBytes.newline, bytes[lineEnd] != TextBytes.carriageReturn {
                lineEnd += 1
            }
            if bytes[start..<lineEnd].contains(0) {
                return ConfigDiagnostic(path: "", line: line,
                                        message: "is not a unit file: line \(line) contains a NUL byte; \(text)")
            }
            // A line cut by the window may end inside a character: judge only whole lines.
            let whole = lineEnd < end || end == bytes.count
            let trimmed = TextBytes.trimmed(bytes, start..<lineEnd)
            if !sawHeader, !trimmed.isEmpty {
                let first = bytes[trimmed.lowerBound]
                if first == 0x5B {  // "["
                    sawHeader = true
                } else if first != TextBytes.hash, first != TextBytes.semicolon {
                    sawText = true
                    if whole, let bad = TextBytes.firstInvalidUTF8(bytes, trimmed) {
                        let hex = String(bytes[bad], radix: 16, uppercase: true)
                        return ConfigDiagnostic(
                            path: "", line: line,
                            message: "is not a unit file: line \(line) is not valid UTF-8 (byte 0x\(hex) "
                                + "at column \(bad - start + 1)); \(text)")
                    }
                }
            }
            // "\r\n" is one line end.
            start = lineEnd + 1
            if lineEnd < end, bytes[lineEnd] == TextBytes.carriageReturn, start < end,
               bytes[start] == TextBytes.newline { start += 1 }
        }
        guard sawText, !sawHeader else { return nil }
        return ConfigDiagnostic(
            path: "", message: "is not a unit file: no [Section] header in its first 4 KiB; "
                + "put \(expectedSection) above its settings")
    }
}

extension ConfigPath.Role {
    /// The section a file of this role starts with, for the unit-file roles; nil for drop-in
    /// scripts (any executable, its settings in comments) and ignored files.
    var expectedSection: String? {
        switch self {
        case .agentSettings: return "[Agent]"
        case .manifest: return "[Manifest]"
        case .jobDefinition: return "[Job]"
        case .dropInScript, .ignored: return nil
        }
    }
}
