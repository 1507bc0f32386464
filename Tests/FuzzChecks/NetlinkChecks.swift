// SPDX-License-Identifier: Apache-2.0
import AgentSystem

/// Netlink datagrams: the messages framed re-encode to a datagram that frames to the same
/// messages; attribute lists (flat, after a genetlink or rtmsg header, and nested) re-encode to
/// the same attributes; route messages re-encode to the same route; genetlink and thermal
/// decoding never trap.
enum NetlinkChecks {
    static func check(_ bytes: [UInt8]) -> String? {
        let batch = NetlinkMessage.split(bytes)
        let encoded = batch.messages.flatMap { $0.encoded() }
        let again = NetlinkMessage.split(encoded)
        if again.isMalformed || again.messages != batch.messages {
            return "\(batch.messages.count) messages re-encoded frame as \(again.messages.count) (malformed \(again.isMalformed))"
        }
        for message in batch.messages {
            if let failure = attributesRoundTrip(message.payload, depth: 0) { return failure }
            if message.payload.count >= 4, let failure = attributesRoundTrip(message.payload.dropFirst(4), depth: 0) {
                return failure
            }
            if let failure = routeRoundTrip(message) { return failure }
            if let generic = GenericNetlinkMessage(message) {
                _ = try? ThermalNetlinkEvent.parse(generic)
            }
            _ = try? ThermalNetlinkEvent.parse(message)
            _ = message.errorCode
        }
        return nil
    }

    static func attributesRoundTrip(_ bytes: ArraySlice<UInt8>, depth: Int) -> String? {
        let list = NetlinkAttributeList(parsing: bytes)
        let reparsed = NetlinkAttributeList(parsing: list.flatMap(encode))
        if reparsed.isMalformed || !same(Array(list), Array(reparsed)) {
            return "\(list.count) attributes re-encoded parse as \(reparsed.count) (malformed \(reparsed.isMalformed))"
        }
        guard depth < 3 else { return nil }
        for attribute in list {
            if let failure = attributesRoundTrip(attribute.payload, depth: depth + 1) { return failure }
        }
        return nil
    }

    /// Compares by content: slices of different buffers with the same bytes are the same attribute.
    static func same(_ a: [NetlinkAttribute], _ b: [NetlinkAttribute]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy {
            $0.type == $1.type && $0.isNestedFlagSet == $1.isNestedFlagSet
                && $0.isNetworkByteOrder == $1.isNetworkByteOrder && Array($0.payload) == Array($1.payload)
        }
    }

    /// An attribute with its flag bits, in host byte order, padded to 4 bytes.
    static func encode(_ attribute: NetlinkAttribute) -> [UInt8] {
        let length = 4 + attribute.payload.count
        var type = attribute.type
        if attribute.isNestedFlagSet { type |= NetlinkAttribute.nestedFlag }
        if attribute.isNetworkByteOrder { type |= NetlinkAttribute.networkByteOrderFlag }
        var out = withUnsafeBytes(of: UInt16(length)) { Array($0) } + withUnsafeBytes(of: type) { Array($0) }
        out += attribute.payload
        out += [UInt8](repeating: 0, count: (4 - length % 4) % 4)
        return out
    }

    static func routeRoundTrip(_ message: NetlinkMessage) -> String? {
        guard let route = RouteMessage(message) else { return nil }
        _ = route.key
        let encoded = route.encoded(messageType: message.type, sequence: message.sequence)
        guard let first = NetlinkMessage.split(encoded).messages.first, let again = RouteMessage(first) else {
            return "route \(route) re-encoded does not decode"
        }
        return again == route ? nil : "route \(route) re-encoded decodes as \(again)"
    }
}
