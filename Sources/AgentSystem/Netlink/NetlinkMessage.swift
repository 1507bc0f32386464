// SPDX-License-Identifier: Apache-2.0
/// One netlink message: the 16-byte `nlmsghdr` and its payload (netlink(7)).
///
/// `NetlinkMessage.split(_:)` frames a received datagram, which may carry several messages, each
/// starting at a 4-byte-aligned offset (NLMSG_ALIGN). It is pure and checks every length, so it is
/// tested from byte arrays.
public struct NetlinkMessage: Equatable, Sendable {
    /// sizeof(struct nlmsghdr).
    public static let headerSize = 16

    /// NLMSG_NOOP.
    public static let typeNoop: UInt16 = 1
    /// NLMSG_ERROR: the payload starts with a negative errno (0 = an acknowledgement).
    public static let typeError: UInt16 = 2
    /// NLMSG_DONE: the end of a multipart (dump) reply.
    public static let typeDone: UInt16 = 3
    /// NLMSG_OVERRUN.
    public static let typeOverrun: UInt16 = 4

    /// `nlmsg_flags` bits.
    public struct Flags: OptionSet, Hashable, Sendable {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }
        /// NLM_F_REQUEST.
        public static let request = Flags(rawValue: 0x01)
        /// NLM_F_MULTI: part of a multipart reply, ended by NLMSG_DONE.
        public static let multi = Flags(rawValue: 0x02)
        /// NLM_F_ACK.
        public static let ack = Flags(rawValue: 0x04)
        /// NLM_F_DUMP_INTR: the dump was interrupted by a change and may be inconsistent.
        public static let dumpInterrupted = Flags(rawValue: 0x10)
        /// NLM_F_DUMP (NLM_F_ROOT | NLM_F_MATCH).
        public static let dump = Flags(rawValue: 0x300)
    }

    /// `nlmsg_type`.
    public var type: UInt16
    /// `nlmsg_flags`.
    public var flags: Flags
    /// `nlmsg_seq`.
    public var sequence: UInt32
    /// `nlmsg_pid`: the sending port (0 from the kernel), or for a reply the requesting port.
    public var portID: UInt32
    /// The bytes after the header, `nlmsg_len - 16` of them (without the trailing alignment padding).
    public var payload: ArraySlice<UInt8>

    public init(type: UInt16, flags: Flags = [], sequence: UInt32 = 0, portID: UInt32 = 0,
                payload: ArraySlice<UInt8> = []) {
        self.type = type
        self.flags = flags
        self.sequence = sequence
        self.portID = portID
        self.payload = payload
    }

    /// For an NLMSG_ERROR message: the error code (a negative errno, 0 for an acknowledgement).
    public var errorCode: Int32? {
        guard type == NetlinkMessage.typeError, let raw = NetlinkBytes.u32(payload, at: 0) else { return nil }
        return Int32(bitPattern: raw)
    }

    /// The messages of a datagram.
    public struct Batch: Equatable, Sendable {
        /// The well-formed messages, in order.
        public var messages: [NetlinkMessage]
        /// True when framing stopped at a bad length (the rest of the datagram was skipped).
        public var isMalformed: Bool
    }

    /// Frames the messages of one datagram (NLMSG_OK / NLMSG_NEXT). Stops at the first header whose
    /// length is shorter than a header or runs past the end, and reports that as malformed.
    public static func split(_ bytes: [UInt8]) -> Batch {
        split(bytes[...])
    }

    /// Frames the messages of `bytes`; see `split(_:)`.
    public static func split(_ bytes: ArraySlice<UInt8>) -> Batch {
        var messages: [NetlinkMessage] = []
        var offset = 0
        while bytes.count - offset >= headerSize {
            let rest = bytes.dropFirst(offset)
            guard let length32 = NetlinkBytes.u32(rest, at: 0),
                  let type = NetlinkBytes.u16(rest, at: 4),
                  let flags = NetlinkBytes.u16(rest, at: 6),
                  let sequence = NetlinkBytes.u32(rest, at: 8),
                  let port = NetlinkBytes.u32(rest, at: 12) else { break }
            let length = Int(length32)
            guard length >= headerSize, length <= rest.count else {
                return Batch(messages: messages, isMalformed: true)
            }
            let start = rest.startIndex
            messages.append(NetlinkMessage(type: type, flags: Flags(rawValue: flags), sequence: sequence,
                                           portID: port, payload: rest[(start + headerSize)..<(start + length)]))
            offset += NetlinkBytes.align4(length)
        }
        // Fewer than a header's worth of bytes left over (other than alignment) is malformed too.
        let leftover = max(0, bytes.count - offset)
        return Batch(messages: messages, isMalformed: leftover != 0)
    }

    /// Encodes this message: header (with the right `nlmsg_len`) + payload, padded to 4 bytes.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        let length = NetlinkMessage.headerSize + payload.count
        bytes.reserveCapacity(NetlinkBytes.align4(length))
        NetlinkBytes.append(UInt32(length), to: &bytes)
        NetlinkBytes.append(type, to: &bytes)
        NetlinkBytes.append(flags.rawValue, to: &bytes)
        NetlinkBytes.append(sequence, to: &bytes)
        NetlinkBytes.append(portID, to: &bytes)
        bytes.append(contentsOf: payload)
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }
}
