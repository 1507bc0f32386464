// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// `Exec=` splitting: the words of a line, each re-quoted and joined, split to the same words.
enum ExecLineChecks {
    static func check(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        for split in [ExecLine.split, ExecLine.tokenize] {
            guard case .success(let words) = split(text) else { continue }
            let quoted = words.map(quote).joined(separator: " ")
            guard case .success(let again) = split(quoted) else {
                return "re-quoted \(String(reflecting: quoted)) refused (words \(words))"
            }
            if again != words { return "\(words) re-quoted as \(String(reflecting: quoted)) split to \(again)" }
        }
        return nil
    }

    /// Double quotes, with `\\`, `\"` and control bytes escaped.
    static func quote(_ word: String) -> String {
        var out: [UInt8] = [0x22]
        for byte in word.utf8 {
            switch byte {
            case 0x5C, 0x22: out += [0x5C, byte]
            case 0..<0x20, 0x7F: out += Array("\\x\(hex(byte))".utf8)
            default: out.append(byte)
            }
        }
        return String(decoding: out + [0x22], as: UTF8.self)
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
