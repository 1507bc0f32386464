// SPDX-License-Identifier: Apache-2.0
import AgentJSON

/// Encodes and decodes control messages as single JSON lines (no newline inside: JSON escapes
/// any in strings), so a stream splits into messages at `\n`. AgentJSON writes the bytes
/// JSONEncoder would (keys sorted, `/` unescaped) without paging in Foundation.
public enum MessageCoding {
    public static func encodeLine<T: Encodable>(_ value: T) throws -> [UInt8] {
        try JSONLineEncoder().encode(value)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from line: [UInt8]) throws -> T {
        try JSONLineDecoder().decode(type, from: line)
    }

    /// Pretty JSON for `agentctl --json` output meant for people and scripts alike
    /// (docs/json.md): sorted keys, `/` unescaped, empty lists and objects as `[]` and `{}`.
    public static func encodePretty<T: Encodable>(_ value: T) throws -> String {
        let bytes = try JSONLineEncoder(prettyPrinted: true).encode(value)
        return collapsingEmptyContainers(String(decoding: bytes, as: UTF8.self))
    }

    /// `[` or `{`, a blank line and the closing bracket (how the encoder pretty-prints an empty
    /// container) become `[]` or `{}`. A newline never occurs raw inside a JSON string, so
    /// the pattern only ever matches structure.
    static func collapsingEmptyContainers(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            result.append(byte)
            index += 1
            guard byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{"),
                  index + 1 < bytes.count, bytes[index] == 0x0A, bytes[index + 1] == 0x0A else { continue }
            var end = index + 2
            while end < bytes.count, bytes[end] == 0x20 { end += 1 }
            let close = byte == UInt8(ascii: "[") ? UInt8(ascii: "]") : UInt8(ascii: "}")
            if end < bytes.count, bytes[end] == close {
                result.append(close)
                index = end + 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
