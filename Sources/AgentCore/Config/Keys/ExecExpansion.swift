// SPDX-License-Identifier: Apache-2.0
/// `$VAR` and `${VAR}` in `Exec=` words, as systemd.service(5) "Command lines" expands them; the
/// spawn calls it with the run's environment (`Environment=`, `EnvironmentFile=`, the agent's).
///
/// - A word that is exactly `$NAME` becomes the value split on whitespace: zero or more words
///   (unset or empty: none).
/// - `${NAME}` anywhere in a word is replaced by the value, whitespace and all: the word stays one
///   word (unset: empty).
/// - `$$` is a literal `$`; any other `$` (`$1`, a `$NAME` inside a longer word, as systemd
///   leaves it) is kept as written.
/// - The program (`argv[0]`) is never expanded: systemd does not allow a variable there either,
///   and the plugin checks at load name that path.
public enum ExecExpansion {
    public static func expand(_ argv: [String], environment: [String: String]) -> [String] {
        var result: [String] = []
        result.reserveCapacity(argv.count)
        for (index, word) in argv.enumerated() {
            if index == 0 {
                result.append(word)
            } else if let name = wholeWordVariable(word) {
                let value = environment[name] ?? ""
                for part in value.utf8.split(whereSeparator: TextBytes.isWhitespace) {
                    result.append(String(decoding: part, as: UTF8.self))
                }
            } else {
                result.append(expandBraced(word, environment: environment))
            }
        }
        return result
    }

    /// Whether an argument refers to a variable at all (for `check`'s notes and `convert`).
    public static func mentionsVariable(_ word: String) -> Bool {
        if wholeWordVariable(word) != nil { return true }
        let bytes = Array(word.utf8)
        var index = 0
        while index + 1 < bytes.count {
            if bytes[index] == 0x24, bytes[index + 1] == 0x24 { index += 2; continue }
            if bytes[index] == 0x24, bytes[index + 1] == 0x7B, index + 2 < bytes.count, isNameStart(bytes[index + 2]) {
                return true
            }
            index += 1
        }
        return false
    }

    /// `NAME` of a word that is `$NAME` and nothing else.
    static func wholeWordVariable(_ word: String) -> String? {
        let bytes = Array(word.utf8)
        guard bytes.count >= 2, bytes[0] == 0x24, isNameStart(bytes[1]),
              bytes.dropFirst(2).allSatisfy(isNameByte)
        else { return nil }
        return String(decoding: bytes[1...], as: UTF8.self)
    }

    static func expandBraced(_ word: String, environment: [String: String]) -> String {
        let bytes = Array(word.utf8)
        guard bytes.contains(0x24) else { return word }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == 0x24, index + 1 < bytes.count else {
                out.append(byte)
                index += 1
                continue
            }
            let next = bytes[index + 1]
            if next == 0x24 {
                out.append(0x24)
                index += 2
            } else if next == 0x7B, let close = bytes[(index + 2)...].firstIndex(of: 0x7D),
                      close > index + 2, isNameStart(bytes[index + 2]),
                      bytes[(index + 3)..<close].allSatisfy(isNameByte)
            {
                let name = String(decoding: bytes[(index + 2)..<close], as: UTF8.self)
                out += Array((environment[name] ?? "").utf8)
                index = close + 1
            } else {
                out.append(byte)
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func isNameStart(_ byte: UInt8) -> Bool {
        byte == 0x5F || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
    }

    static func isNameByte(_ byte: UInt8) -> Bool { isNameStart(byte) || TextBytes.isDigit(byte) }
}
