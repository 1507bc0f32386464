// SPDX-License-Identifier: Apache-2.0
import FoundationEssentials

/// Encodes and decodes control messages as single JSON lines (no newline inside: JSON escapes
/// any in strings), so a stream splits into messages at `\n`.
public enum MessageCoding {
    public static func encodeLine<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(value))
    }

    public static func decode<T: Decodable>(_ type: T.Type, from line: [UInt8]) throws -> T {
        try JSONDecoder().decode(type, from: Data(line))
    }

    /// Pretty JSON for `agentctl --json` output meant for people and scripts alike.
    public static func encodePretty<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
