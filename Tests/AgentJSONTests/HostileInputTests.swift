// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentJSON
import AgentProtocol
import Foundation
import Testing

/// The control socket's bytes come from any local user allowed to connect: whatever they are,
/// decoding ends in a value or a DecodingError, in time linear in the input.
@Suite struct HostileInputTests {
    @Test func nestingIsLimitedTo512LevelsAsInJSONDecoder() {
        for depth in [511, 512, 513] {
            let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            expectSameDecoding(Anything.self, text)
        }
        let deep = Array(String(repeating: "[", count: 1_000_000).utf8)
        #expect(throws: DecodingError.self) { try JSONLineDecoder().decode(Anything.self, from: deep) }
        let deepObjects = Array(String(repeating: #"{"a":"#, count: 100_000).utf8)
        #expect(throws: DecodingError.self) { try JSONLineDecoder().decode(ControlRequest.self, from: deepObjects) }
    }

    @Test func hugeNumbersAreErrorsNotTraps() {
        let huge = String(repeating: "9", count: 100_000)
        #expect(throws: DecodingError.self) { try JSONLineDecoder().decode(Int.self, from: Array(huge.utf8)) }
        #expect(throws: DecodingError.self) { try JSONLineDecoder().decode(Double.self, from: Array(huge.utf8)) }
        for text in [huge, "-" + huge, "1e" + huge, "0." + huge, "1e-" + huge, huge + ".5e-" + huge] {
            expectSameDecoding(UInt8.self, "-" + text)
            expectSameDecoding(Int.self, text)
            expectSameDecoding(UInt8.self, text)
            expectSameDecoding(Double.self, text)
        }
    }

    @Test func truncatedInputIsAnError() throws {
        let request = try MessageCoding.encodeLine(ControlRequest.submit(target: "local.export",
            SubmitRequest(title: "T", arguments: ["a\"b", "/x"])))
        for length in 0..<request.count {
            let prefix = Array(request[..<length])
            #expect(throws: DecodingError.self) { try JSONLineDecoder().decode(ControlRequest.self, from: prefix) }
            expectSameDecoding(ControlRequest.self, prefix)
        }
        #expect(try JSONLineDecoder().decode(ControlRequest.self, from: request).target == "local.export")
    }

    @Test func invalidUTF8AndUnterminatedStrings() {
        let cases: [[UInt8]] = [
            [0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
            [0x22, 0xC0, 0xAF, 0x22], [0x22, 0x61], [0x22], [0x22, 0x5C], [0x22, 0x5C, 0x75, 0x30], [0xFF], [0x00],
            Array(#"{"command":"status","target":""#.utf8) + [0xFE],
        ]
        for bytes in cases {
            #expect(throws: DecodingError.self) { try JSONLineDecoder().decode(String.self, from: bytes) }
            expectSameDecoding(String.self, bytes)
            expectSameDecoding(ControlRequest.self, bytes)
        }
    }

    /// How long they take is bench/JSONBench's (`json-bench` prints a row for each).
    @Test func longStringsManyKeysAndDuplicateKeysDecode() throws {
        let long = "\"" + String(repeating: "a\\n", count: 500_000) + "\""
        let text = try JSONLineDecoder().decode(String.self, from: Array(long.utf8))
        #expect(text.utf8.count == 1_000_000)
        var many = "{"
        for index in 0..<100_000 { many += "\"k\(index)\":\(index)," }
        many += "\"k\":0}"
        let object = try JSONLineDecoder().decode([String: Int].self, from: Array(many.utf8))
        #expect(object.count == 100_001)
        let duplicate = "{" + String(repeating: "\"k\":1,", count: 200_000) + "\"k\":2}"
        #expect(try JSONLineDecoder().decode([String: Int].self, from: Array(duplicate.utf8)) == ["k": 1])
    }

    /// A seeded stream of mutated requests: each decodes or throws, never traps.
    @Test func mutatedRequestsNeverTrap() throws {
        var random = SeededRandom(seed: 17)
        let request = try Reference.line(ControlRequest.history(HistoryQuery(target: "com.example.a", limit: 5,
                                                                            cursor: RunCursor(runID: RunID(1), startedAt: 1_796_111_000_000),
                                                                            omitLogTails: true)))
        let alphabet = Array(#"{}[]",:\/u0123456789eE+-.tfnrl "#.utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xFF]
        for _ in 0..<3000 {
            var bytes = request
            for _ in 0..<(1 + random.below(4)) {
                let position = random.below(bytes.count)
                switch random.below(3) {
                case 0: bytes[position] = alphabet[random.below(alphabet.count)]
                case 1: bytes.remove(at: position)
                default: bytes.insert(alphabet[random.below(alphabet.count)], at: position)
                }
                if bytes.isEmpty { bytes = [0x7B] }
            }
            expectSameDecoding(ControlRequest.self, bytes)
        }
    }
}
