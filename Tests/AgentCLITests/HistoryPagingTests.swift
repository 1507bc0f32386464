// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import Glibc
import Testing
@testable import AgentCLI

/// `agentctl history --json` prints page after page; the result is the same document as one
/// array encoded at once (Tests/Golden/json/history.json).
@Suite struct HistoryPagingTests {
    private func written(_ body: (inout PrettyJSONArrayWriter) throws -> Void) throws -> String {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        var writer = PrettyJSONArrayWriter(descriptor: fds[1])
        try body(&writer)
        writer.finish()
        close(fds[1])
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fds[0], &buffer, buffer.count)
            guard count > 0 else { break }
            output += buffer[0..<count]
        }
        close(fds[0])
        return String(decoding: output, as: UTF8.self)
    }

    @Test func streamedRunsReadExactlyLikeTheWholeArray() throws {
        let streamed = try written { writer in
            for run in Fixture.runs { try writer.write(run) }
        }
        #expect(streamed == (try MessageCoding.encodePretty(Fixture.runs)) + "\n")
    }

    @Test func noRunsIsAnEmptyArray() throws {
        let streamed = try written { _ in }
        #expect(streamed == (try MessageCoding.encodePretty([RunRecord]())) + "\n")
    }
}
