// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
@testable import AgentSystem

/// `ClientConnection.stream`: a subscriber that falls more than `maxStreamBacklog` behind gets
/// one last line and is closed; the server never holds more than the backlog and that line.
@Suite("Control socket streams")
struct StreamBacklogTests {
    @Test("a stream past its backlog ends with one last line, then the close (reason outputOverflow)")
    func overflowEndsTheStream() throws {
        let loop = try EventLoop()
        let path = uniqueSocketPath("stream")
        let backlog = 8 << 10
        let event = Array(repeating: UInt8(ascii: "e"), count: 1000)
        var sent = 0
        var heldAtOverflow = -1
        var reason: ClientConnection.CloseReason?
        let server = try ControlServer(loop: loop, path: path, limits: .init(maxStreamBacklog: backlog)) { request in
            request.connection.isStreaming = true
            request.respond(Array("subscribed".utf8))
            // All in one callback: the client cannot read meanwhile, so the kernel's buffer fills,
            // then the backlog.
            while sent < 100_000, request.connection.stream(event, lastLine: { Array("overflow".utf8) }) {
                sent += 1
            }
            heldAtOverflow = request.connection.pendingOutputBytes
        }
        let done = Countdown(2, loop: loop)
        server.onDisconnect = { _, why in
            reason = why
            done.tick()
        }
        let client = try LoopClient(loop: loop, path: path)
        client.onEOF = done.tick
        client.write("subscribe\n")
        #expect(runLoop(loop))
        #expect(sent > 0 && sent < 100_000, "the stream stopped at its backlog (\(sent) lines)")
        #expect(heldAtOverflow <= backlog + "overflow\n".utf8.count, "held \(heldAtOverflow) bytes")
        let lines = client.lines
        #expect(lines.first == "subscribed")
        #expect(lines.last == "overflow")
        #expect(lines.filter { $0 == "overflow" }.count == 1)
        #expect(lines.count == sent + 2, "every line accepted was delivered, then the last one")
        #expect(reason == .outputOverflow)
        server.close()
    }
}
