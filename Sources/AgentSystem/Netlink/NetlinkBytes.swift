// SPDX-License-Identifier: Apache-2.0
/// Bounds-checked reads of host-byte-order integers from byte slices: netlink headers and most
/// attributes are in the host's byte order (netlink(7)). Every read returns nil past the end, so a
/// parser fed garbage fails instead of trapping.
enum NetlinkBytes {
    static func u8(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt8? {
        guard offset >= 0, offset < bytes.count else { return nil }
        return bytes[bytes.startIndex + offset]
    }

    static func u16(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt16? {
        load(bytes, at: offset, as: UInt16.self)
    }

    static func u32(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt32? {
        load(bytes, at: offset, as: UInt32.self)
    }

    static func u64(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt64? {
        load(bytes, at: offset, as: UInt64.self)
    }

    private static func load<T: FixedWidthInteger>(_ bytes: ArraySlice<UInt8>, at offset: Int, as: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        guard offset >= 0, offset <= bytes.count - size else { return nil }
        return bytes.withUnsafeBytes { raw in raw.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }

    /// Appends `value` in host byte order.
    static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    /// Overwrites `MemoryLayout<T>.size` bytes at `offset` with `value` in host byte order.
    static func store<T: FixedWidthInteger>(_ value: T, at offset: Int, in bytes: inout [UInt8]) {
        withUnsafeBytes(of: value) { raw in
            for (index, byte) in raw.enumerated() { bytes[offset + index] = byte }
        }
    }

    /// NLMSG_ALIGN / NLA_ALIGN: rounds up to a multiple of 4.
    static func align4(_ length: Int) -> Int {
        (length + 3) & ~3
    }
}
