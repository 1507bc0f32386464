// SPDX-License-Identifier: Apache-2.0
import AgentSystem
import AgentTestSupport
import Foundation
import Glibc
import Testing

/// The journal's native protocol as agentd speaks it without libsystemd (issue 17): the encoding
/// of systemd.io/JOURNAL_NATIVE_PROTOCOL, and the datagram (or memfd) that reaches the socket.
/// JournalFieldsIntegrationTests has a real systemd-journald read it.
@Suite(.serialized) struct JournalProtocolTests {
    /// A bound datagram socket standing in for journald's.
    final class JournalSocket {
        private let socket: DatagramSocket
        var path: String { socket.path }
        var fd: Int32 { socket.descriptor }

        init() throws {
            let path = NSTemporaryDirectory() + "agentd-journal-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
            guard let socket = DatagramSocket(path: path, receiveBuffer: 8 << 20) else { throw POSIXError(.EADDRINUSE) }
            self.socket = socket
        }

        /// The next datagram's bytes and the descriptor passed with it, if any (waits up to 10 s).
        func receive() -> (bytes: [UInt8], passed: Int32?)? {
            guard socket.waitReadable(seconds: 10) else { return nil }
            var data = [UInt8](repeating: 0, count: 1 << 20)
            var control = [UInt8](repeating: 0, count: 64)
            let count = data.withUnsafeMutableBytes { dataBuffer in
                control.withUnsafeMutableBytes { controlBuffer in
                    var vector = iovec(iov_base: dataBuffer.baseAddress, iov_len: dataBuffer.count)
                    return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                        var message = msghdr()
                        message.msg_iov = vectorPointer
                        message.msg_iovlen = 1
                        message.msg_control = controlBuffer.baseAddress
                        message.msg_controllen = controlBuffer.count
                        let received = recvmsg(fd, &message, 0)
                        return (received, message.msg_controllen)
                    }
                }
            }
            guard count.0 >= 0 else { return nil }
            // One cmsghdr: length (8 bytes), level and type (4 each), then the descriptor.
            var passed: Int32?
            if count.1 >= 20 {
                let level = control[8..<12].withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }
                let type = control[12..<16].withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }
                if level == SOL_SOCKET && type == 1 /* SCM_RIGHTS */ {
                    passed = control[16..<20].withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }
                }
            }
            return (Array(data[0..<count.0]), passed)
        }
    }

    static func fields(_ texts: [String]) -> [[UInt8]] { texts.map { Array($0.utf8) } }

    @Test func fieldsWithoutANewlineAreNameEqualsValueLines() {
        let bytes = JournalProtocol.encode(Self.fields(["MESSAGE=hello", "PRIORITY=6", "EMPTY="]))
        #expect(String(decoding: bytes, as: UTF8.self) == "MESSAGE=hello\nPRIORITY=6\nEMPTY=\n")
    }

    @Test func aValueWithANewlineGoesWithItsLengthInLittleEndian() {
        let bytes = JournalProtocol.encode(Self.fields(["MESSAGE=two\nlines", "PRIORITY=3"]))
        let expected: [UInt8] = Array("MESSAGE\n".utf8) + [9, 0, 0, 0, 0, 0, 0, 0] + Array("two\nlines\n".utf8)
            + Array("PRIORITY=3\n".utf8)
        #expect(bytes == expected)
    }

    @Test func anEntryReachesTheSocketAsOneDatagram() throws {
        let journal = try JournalSocket()
        #expect(JournalProtocol.send(Self.fields(["MESSAGE=hi", "SYSLOG_IDENTIFIER=agentd"]), socket: journal.path))
        let received = journal.receive()
        #expect(received.map { String(decoding: $0.bytes, as: UTF8.self) } == "MESSAGE=hi\nSYSLOG_IDENTIFIER=agentd\n")
        #expect(received?.passed == nil)
    }

    @Test func anEntryTooLargeForADatagramGoesAsASealedMemfd() throws {
        let journal = try JournalSocket()
        // Larger than any datagram the sender's socket can hold: it asks for an 8 MB send buffer
        // (the kernel doubles it, and caps it at wmem_max).
        let big = "MESSAGE=" + String(repeating: "x", count: 17 << 20)
        #expect(JournalProtocol.send(Self.fields([big]), socket: journal.path))
        let received = try #require(journal.receive())
        #expect(received.bytes.count == 0, "a datagram of \(received.bytes.count) bytes came instead of a memfd")
        let memfd = try #require(received.passed)
        defer { close(memfd) }
        // F_GET_SEALS and F_SEAL_WRITE (linux/fcntl.h), which Glibc does not export to Swift.
        let getSeals: Int32 = 1024 + 10, sealWrite: Int32 = 0x0008
        #expect(fcntl(memfd, getSeals) & sealWrite != 0)
        var info = stat()
        #expect(fstat(memfd, &info) == 0 && Int(info.st_size) == big.utf8.count + 1)
    }

    @Test func noJournalThereIsAFailedSendNotACrash() throws {
        #expect(!JournalProtocol.send(Self.fields(["MESSAGE=hi"]), socket: NSTemporaryDirectory() + "no-such-journal.sock"))
        #expect(!JournalProtocol.send(Self.fields(["MESSAGE=hi"]), socket: "relative/path"))
    }
}
