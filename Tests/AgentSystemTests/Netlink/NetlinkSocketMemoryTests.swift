// SPDX-License-Identifier: Apache-2.0
import AgentSystem
import Foundation
import Glibc
import Testing

/// A netlink socket's receive buffer costs memory only once datagrams arrive (issue 17): the
/// three monitors' 64 KB buffers were zero-filled, 192 KB resident in an idle agent.
struct NetlinkSocketMemoryTests {
    /// This process's resident set (pages × page size), from /proc/self/statm.
    static func residentBytes() throws -> Int {
        let text = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8)
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { throw POSIXError(.EINVAL) }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    @Test func anIdleSocketsReceiveBufferIsNotResident() throws {
        // Far larger than anything the other tests running meanwhile allocate.
        let size = 256 << 20
        let before = try Self.residentBytes()
        let socket = try NetlinkSocket(protocol: .route, maximumDatagramSize: size)
        let grown = try Self.residentBytes() - before
        withExtendedLifetime(socket) {}
        #expect(grown < size / 2, "creating a socket with a \(size >> 20) MB buffer made \(grown >> 20) MB resident")
    }

    @Test func aReceivedDatagramIsStillReadWhole() throws {
        // A route dump answers with datagrams: what was received is what comes back.
        let socket = try NetlinkSocket(protocol: .route)
        var request = [UInt8](repeating: 0, count: 16 + 12)
        let length = UInt32(request.count)
        withUnsafeBytes(of: length.littleEndian) { request.replaceSubrange(0..<4, with: $0) }
        withUnsafeBytes(of: UInt16(26).littleEndian) { request.replaceSubrange(4..<6, with: $0) }  // RTM_GETROUTE
        withUnsafeBytes(of: UInt16(0x301).littleEndian) { request.replaceSubrange(6..<8, with: $0) }  // REQUEST|DUMP
        request[16] = UInt8(AF_INET)
        try socket.send(request)
        #expect(socket.waitReadable(timeout: .seconds(5)))
        guard case .datagram(let datagram) = socket.receive() else {
            Issue.record("no datagram from the route dump")
            return
        }
        #expect(datagram.bytes.count >= 16)
        let first = datagram.bytes[0..<4].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        #expect(Int(UInt32(littleEndian: first)) <= datagram.bytes.count, "the first message's length lies past the datagram")
    }
}
