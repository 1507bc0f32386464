// SPDX-License-Identifier: Apache-2.0
/// One netlink attribute (`struct nlattr`: 16-bit length, 16-bit type, payload), as carried by
/// generic-netlink and rtnetlink messages. Attributes follow each other at 4-byte-aligned offsets
/// (NLA_ALIGN); a nested attribute's payload is itself a list of attributes.
public struct NetlinkAttribute: Equatable, Sendable {
    /// sizeof(struct nlattr).
    public static let headerSize = 4
    /// NLA_F_NESTED: the payload is a list of attributes.
    public static let nestedFlag: UInt16 = 0x8000
    /// NLA_F_NET_BYTEORDER: the payload is in network byte order.
    public static let networkByteOrderFlag: UInt16 = 0x4000

    /// The attribute type with the two flag bits masked off.
    public let type: UInt16
    /// Whether NLA_F_NESTED was set (many families nest without setting it).
    public let isNestedFlagSet: Bool
    /// Whether NLA_F_NET_BYTEORDER was set.
    public let isNetworkByteOrder: Bool
    /// The payload (`nla_len - 4` bytes, without padding).
    public let payload: ArraySlice<UInt8>

    public init(type: UInt16, payload: ArraySlice<UInt8>, nested: Bool = false, networkByteOrder: Bool = false) {
        self.type = type & ~(NetlinkAttribute.nestedFlag | NetlinkAttribute.networkByteOrderFlag)
        self.isNestedFlagSet = nested
        self.isNetworkByteOrder = networkByteOrder
        self.payload = payload
    }

    /// The payload as an 8-bit value (nil when it is shorter).
    public var u8: UInt8? { NetlinkBytes.u8(payload, at: 0) }
    /// The payload as a 16-bit value in host byte order (nil when it is shorter).
    public var u16: UInt16? { NetlinkBytes.u16(payload, at: 0) }
    /// The payload as a 32-bit value in host byte order (nil when it is shorter).
    public var u32: UInt32? { NetlinkBytes.u32(payload, at: 0) }
    /// The payload as a signed 32-bit value (temperatures in millidegrees are sent as u32 bit patterns).
    public var int32: Int32? { u32.map { Int32(bitPattern: $0) } }
    /// The payload as a 64-bit value in host byte order (nil when it is shorter).
    public var u64: UInt64? { NetlinkBytes.u64(payload, at: 0) }

    /// The payload as a string: up to the first NUL (NLA_NUL_STRING / NLA_STRING), UTF-8 decoded with
    /// replacement characters for invalid bytes.
    public var string: String {
        let end = payload.firstIndex(of: 0) ?? payload.endIndex
        return String(decoding: payload[payload.startIndex..<end], as: UTF8.self)
    }

    /// The payload parsed as a nested attribute list.
    public var nested: NetlinkAttributeList { NetlinkAttributeList(parsing: payload) }

    /// Encodes one attribute with `payload`, padded to 4 bytes.
    public static func encode(type: UInt16, payload: [UInt8], nested: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = []
        let length = headerSize + payload.count
        NetlinkBytes.append(UInt16(length), to: &bytes)
        NetlinkBytes.append(type | (nested ? nestedFlag : 0), to: &bytes)
        bytes.append(contentsOf: payload)
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    /// Encodes a 32-bit attribute in host byte order.
    public static func encode(type: UInt16, u32 value: UInt32) -> [UInt8] {
        var payload: [UInt8] = []
        NetlinkBytes.append(value, to: &payload)
        return encode(type: type, payload: payload)
    }

    /// Encodes a 16-bit attribute in host byte order.
    public static func encode(type: UInt16, u16 value: UInt16) -> [UInt8] {
        var payload: [UInt8] = []
        NetlinkBytes.append(value, to: &payload)
        return encode(type: type, payload: payload)
    }

    /// Encodes a NUL-terminated string attribute.
    public static func encode(type: UInt16, string: String) -> [UInt8] {
        encode(type: type, payload: Array(string.utf8) + [0])
    }
}

/// The attributes of a message payload (or of a nested attribute), parsed with every length checked.
public struct NetlinkAttributeList: Equatable, Sendable, RandomAccessCollection {
    /// The well-formed attributes, in order.
    public let attributes: [NetlinkAttribute]
    /// True when parsing stopped at an attribute whose length was impossible (shorter than its
    /// header or past the end); the attributes before it are kept.
    public let isMalformed: Bool

    public init(attributes: [NetlinkAttribute], isMalformed: Bool = false) {
        self.attributes = attributes
        self.isMalformed = isMalformed
    }

    /// Parses consecutive attributes from `bytes` (nla_ok / nla_next).
    public init(parsing bytes: ArraySlice<UInt8>) {
        var attributes: [NetlinkAttribute] = []
        var offset = 0
        var malformed = false
        while bytes.count - offset >= NetlinkAttribute.headerSize {
            let rest = bytes.dropFirst(offset)
            guard let length16 = NetlinkBytes.u16(rest, at: 0), let rawType = NetlinkBytes.u16(rest, at: 2) else { break }
            let length = Int(length16)
            guard length >= NetlinkAttribute.headerSize, length <= rest.count else {
                malformed = true
                break
            }
            let start = rest.startIndex
            attributes.append(NetlinkAttribute(
                type: rawType, payload: rest[(start + NetlinkAttribute.headerSize)..<(start + length)],
                nested: rawType & NetlinkAttribute.nestedFlag != 0,
                networkByteOrder: rawType & NetlinkAttribute.networkByteOrderFlag != 0))
            offset += NetlinkBytes.align4(length)
        }
        // 1-3 stray bytes after the last attribute: the sender's padding was cut short. Tolerated.
        self.attributes = attributes
        self.isMalformed = malformed
    }

    /// Parses consecutive attributes from `bytes`.
    public init(parsing bytes: [UInt8]) {
        self.init(parsing: bytes[...])
    }

    public var startIndex: Int { attributes.startIndex }
    public var endIndex: Int { attributes.endIndex }
    public subscript(position: Int) -> NetlinkAttribute { attributes[position] }

    /// The first attribute of `type` (flags masked), or nil.
    public subscript(type type: UInt16) -> NetlinkAttribute? {
        attributes.first { $0.type == type }
    }
}
