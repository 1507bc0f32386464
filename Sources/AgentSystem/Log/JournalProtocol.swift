// SPDX-License-Identifier: Apache-2.0
import CSystemd

/// The journal's native protocol (systemd.io/JOURNAL_NATIVE_PROTOCOL), spoken without libsystemd:
/// an entry is one datagram to the journal's socket holding its fields, each `NAME=value\n`, or —
/// for a value with a newline — `NAME\n`, the value's length as 64-bit little endian, the value
/// and `\n`. What sd_journal_sendv sends.
public enum JournalProtocol {
    /// Where journald listens for native entries.
    public static let socketPath = "/run/systemd/journal/socket"

    /// The datagram of an entry whose fields are `NAME=value` byte strings.
    public static func encode(_ fields: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(fields.reduce(0) { $0 + $1.count + 10 })
        for field in fields {
            guard let equals = field.firstIndex(of: 0x3D), field[equals...].contains(0x0A) else {
                bytes.append(contentsOf: field)
                bytes.append(0x0A)
                continue
            }
            let value = field[(equals + 1)...]
            bytes.append(contentsOf: field[..<equals])
            bytes.append(0x0A)
            var length = UInt64(value.count).littleEndian
            withUnsafeBytes(of: &length) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: value)
            bytes.append(0x0A)
        }
        return bytes
    }

    /// Sends an entry; whether journald's socket took it.
    public static func send(_ fields: [[UInt8]], socket: String = socketPath) -> Bool {
        let datagram = encode(fields)
        return datagram.withUnsafeBytes { raw in
            csystemd_journal_send(socket, raw.baseAddress, raw.count) >= 0
        }
    }
}
