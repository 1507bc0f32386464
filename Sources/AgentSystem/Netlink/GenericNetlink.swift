// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The 4-byte generic-netlink header (`struct genlmsghdr`) that follows the `nlmsghdr` of every
/// generic-netlink message, and the attributes after it.
public struct GenericNetlinkMessage: Equatable, Sendable {
    /// sizeof(struct genlmsghdr).
    public static let headerSize = 4

    /// The family id (the `nlmsg_type` of the netlink message).
    public let family: UInt16
    /// `cmd`: the family's command or event number.
    public let command: UInt8
    /// `version`.
    public let version: UInt8
    /// The attributes after the header.
    public let attributes: NetlinkAttributeList

    public init(family: UInt16, command: UInt8, version: UInt8, attributes: NetlinkAttributeList) {
        self.family = family
        self.command = command
        self.version = version
        self.attributes = attributes
    }

    /// Splits a netlink message into the generic header and attributes; nil when the payload is
    /// shorter than the generic header.
    public init?(_ message: NetlinkMessage) {
        guard let command = NetlinkBytes.u8(message.payload, at: 0),
              let version = NetlinkBytes.u8(message.payload, at: 1),
              message.payload.count >= GenericNetlinkMessage.headerSize else { return nil }
        self.init(family: message.type, command: command, version: version,
                  attributes: NetlinkAttributeList(parsing: message.payload.dropFirst(GenericNetlinkMessage.headerSize)))
    }

    /// Encodes a request to `family`: nlmsghdr + genlmsghdr + `attributes` (already encoded).
    public static func request(family: UInt16, command: UInt8, version: UInt8 = 1, flags: NetlinkMessage.Flags = .request,
                               sequence: UInt32, attributes: [UInt8]) -> [UInt8] {
        var payload: [UInt8] = [command, version, 0, 0]
        payload += attributes
        return NetlinkMessage(type: family, flags: flags, sequence: sequence, payload: payload[...]).encoded()
    }
}

/// A generic-netlink family as `nlctrl` describes it: its id and its multicast groups.
public struct GenericNetlinkFamily: Equatable, Sendable {
    /// The family name, e.g. `"thermal"`, `"nlctrl"`.
    public let name: String
    /// The family id to put in `nlmsg_type` (dynamic, except nlctrl's fixed 0x10).
    public let id: UInt16
    /// The family's version.
    public let version: UInt32
    /// Multicast group name → group id (for NETLINK_ADD_MEMBERSHIP).
    public let multicastGroups: [String: UInt32]

    public init(name: String, id: UInt16, version: UInt32 = 0, multicastGroups: [String: UInt32] = [:]) {
        self.name = name
        self.id = id
        self.version = version
        self.multicastGroups = multicastGroups
    }

    // nlctrl (include/uapi/linux/genetlink.h)
    /// GENL_ID_CTRL: the fixed id of the `nlctrl` family.
    public static let controllerID: UInt16 = 0x10
    static let commandNewFamily: UInt8 = 1      // CTRL_CMD_NEWFAMILY
    static let commandGetFamily: UInt8 = 3      // CTRL_CMD_GETFAMILY
    static let attributeFamilyID: UInt16 = 1    // CTRL_ATTR_FAMILY_ID (u16)
    static let attributeFamilyName: UInt16 = 2  // CTRL_ATTR_FAMILY_NAME (string)
    static let attributeVersion: UInt16 = 3     // CTRL_ATTR_VERSION (u32)
    static let attributeMulticastGroups: UInt16 = 7  // CTRL_ATTR_MCAST_GROUPS (nested array)
    static let groupAttributeName: UInt16 = 1   // CTRL_ATTR_MCAST_GRP_NAME (string)
    static let groupAttributeID: UInt16 = 2     // CTRL_ATTR_MCAST_GRP_ID (u32)

    /// Encodes a CTRL_CMD_GETFAMILY request for `name` to nlctrl.
    public static func getFamilyRequest(name: String, sequence: UInt32) -> [UInt8] {
        GenericNetlinkMessage.request(family: controllerID, command: commandGetFamily, sequence: sequence,
                                      attributes: NetlinkAttribute.encode(type: attributeFamilyName, string: name))
    }

    /// Parses nlctrl's CTRL_CMD_NEWFAMILY reply. The multicast groups attribute is an array: a
    /// nested attribute whose members (types 1, 2, …) are each a nested NAME/ID pair. Returns nil when
    /// the message is not a complete family description.
    public static func parse(_ message: NetlinkMessage) -> GenericNetlinkFamily? {
        guard message.type == controllerID, let generic = GenericNetlinkMessage(message),
              generic.command == commandNewFamily,
              let id = generic.attributes[type: attributeFamilyID]?.u16,
              let name = generic.attributes[type: attributeFamilyName]?.string else { return nil }
        var groups: [String: UInt32] = [:]
        if let list = generic.attributes[type: attributeMulticastGroups] {
            for entry in list.nested {
                let fields = entry.nested
                guard let groupName = fields[type: groupAttributeName]?.string,
                      let groupID = fields[type: groupAttributeID]?.u32 else { continue }
                groups[groupName] = groupID
            }
        }
        return GenericNetlinkFamily(name: name, id: id, version: generic.attributes[type: attributeVersion]?.u32 ?? 0,
                                    multicastGroups: groups)
    }

    /// The outcome of reading nlctrl's answer to a GETFAMILY request.
    public enum Reply: Equatable, Sendable {
        /// The family exists.
        case family(GenericNetlinkFamily)
        /// No such family (ENOENT): not built into this kernel, or its module is not loaded.
        case notFound
        /// nlctrl answered with another error (a positive errno).
        case error(Int32)
        /// The datagram holds no answer to this request.
        case none
    }

    /// Looks for the answer to request `sequence` in one received datagram. Pure.
    public static func reply(in bytes: [UInt8], sequence: UInt32) -> Reply {
        for message in NetlinkMessage.split(bytes).messages where message.sequence == sequence {
            if let code = message.errorCode {
                if code == 0 { continue }  // an acknowledgement
                return -code == ENOENT ? .notFound : .error(-code)
            }
            if let family = parse(message) { return .family(family) }
        }
        return .none
    }

    /// Resolves `name` through nlctrl on `socket` (a NETLINK_GENERIC socket that has not joined any
    /// group yet, so nothing else arrives): sends CTRL_CMD_GETFAMILY and waits up to `timeout` for the
    /// reply (the kernel answers synchronously; the timeout only bounds a broken kernel).
    /// Returns nil when the family does not exist.
    public static func resolve(_ name: String, on socket: NetlinkSocket, sequence: UInt32 = 1,
                               timeout: Duration = .seconds(5)) throws -> GenericNetlinkFamily? {
        try socket.send(getFamilyRequest(name: name, sequence: sequence))
        let deadline = MonotonicInstant.now() + timeout
        while true {
            switch socket.receive() {
            case .datagram(let datagram):
                switch reply(in: datagram.bytes, sequence: sequence) {
                case .family(let family): return family
                case .notFound: return nil
                case .error(let code): throw SystemError(call: "CTRL_CMD_GETFAMILY(\(name))", errno: code)
                case .none: continue
                }
            case .overflow:
                continue
            case .failed(let error):
                throw error
            case .drained:
                let left = deadline - MonotonicInstant.now()
                guard left > .zero, socket.waitReadable(timeout: left) else {
                    throw SystemError(call: "CTRL_CMD_GETFAMILY(\(name)): no reply", errno: ETIMEDOUT)
                }
            }
        }
    }

    /// Resolves `name` on a temporary NETLINK_GENERIC socket (in the network namespace of `pid` when
    /// given). Returns nil when the family does not exist.
    public static func resolve(_ name: String, networkNamespaceOf pid: pid_t? = nil,
                               timeout: Duration = .seconds(5)) throws -> GenericNetlinkFamily? {
        let socket = try NetlinkSocket(protocol: .generic, networkNamespaceOf: pid, receiveBufferSize: 64 * 1024)
        defer { socket.close() }
        return try resolve(name, on: socket, timeout: timeout)
    }
}
