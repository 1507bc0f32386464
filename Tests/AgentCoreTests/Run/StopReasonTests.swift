// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

// A JSON-free check of the single-string Codable form: encode into a capturing encoder.
private struct CapturingEncoder: Encoder, SingleValueEncodingContainer {
    final class Box { var value: String? }
    let box = Box()
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        fatalError("StopReason must encode as a single value")
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        fatalError("StopReason must encode as a single value")
    }
    func singleValueContainer() -> any SingleValueEncodingContainer { self }
    mutating func encodeNil() throws { box.value = nil }
    mutating func encode<T: Encodable>(_ value: T) throws {
        box.value = value as? String
    }
}

private struct StringDecoder: Decoder, SingleValueDecodingContainer {
    let text: String
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]
    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw DecodingError.typeMismatch(String.self, .init(codingPath: [], debugDescription: "keyed"))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(String.self, .init(codingPath: [], debugDescription: "unkeyed"))
    }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }
    func decodeNil() -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard let value = text as? T else {
            throw DecodingError.typeMismatch(type, .init(codingPath: [], debugDescription: "not a string"))
        }
        return value
    }
}

func encodedText<T: Encodable>(_ value: T) throws -> String? {
    let encoder = CapturingEncoder()
    try value.encode(to: encoder)
    return encoder.box.value
}

func decoded<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
    try T(from: StringDecoder(text: text))
}

private let everyCase: [(StopReason, String)] = [
    (.success, "success"),
    (.failure(exitStatus: 3), "failure(exit 3)"),
    (.failure(exitStatus: 255), "failure(exit 255)"),
    (.failure(exitStatus: -1), "failure(exit -1)"),
    (.failure(exitStatus: Int32.max), "failure(exit 2147483647)"),
    (.failure(exitStatus: Int32.min), "failure(exit -2147483648)"),
    (.expired(.maxRuntime), "expired(max-runtime)"),
    (.expired(.noProgress), "expired(no-progress)"),
    (.expired(.power), "expired(power)"),
    (.expired(.network), "expired(network)"),
    (.expired(.thermal), "expired(thermal)"),
    (.expired(.battery), "expired(battery)"),
    (.expired(.pressure), "expired(pressure)"),
    (.expired(.simulated), "expired(simulated)"),
    (.expired(.limit), "expired(limit)"),
    (.expired(.resource), "expired(resource)"),
    (.cancelled, "cancelled"),
    (.crashed(signal: 11), "crashed(signal 11)"),
    (.crashed(signal: 9), "crashed(signal 9)"),
    (.spawnFailed("no such file"), "spawn-failed(no such file)"),
    (.spawnFailed(""), "spawn-failed()"),
    (.spawnFailed("exec (x) failed)"), "spawn-failed(exec (x) failed))"),
    (.spawnFailed("\u{301}combining first"), "spawn-failed(\u{301}combining first)"),
    (.spawnFailed("line\nbreak"), "spawn-failed(line\nbreak)"),
    (.agentRestart, "agent-restart"),
    (.skipped("ConditionPathExists=/x"), "skipped(ConditionPathExists=/x)"),
    (.skipped("ConditionVirtualization=!container"), "skipped(ConditionVirtualization=!container)"),
]

@Test(arguments: everyCase)
func stopReasonTextIsTheDesignSpelling(_ reason: StopReason, _ text: String) {
    #expect(reason.description == text)
}

@Test(arguments: everyCase)
func stopReasonTextRoundTrips(_ reason: StopReason, _ text: String) {
    #expect(StopReason(parsing: text) == reason)
    #expect(StopReason(parsing: reason.description) == reason)
}

@Test(arguments: everyCase)
func stopReasonCodesAsItsText(_ reason: StopReason, _ text: String) throws {
    #expect(try encodedText(reason) == text)
    #expect(try decoded(StopReason.self, from: text) == reason)
}

@Test func everyExpiryReasonRoundTrips() {
    for reason in ExpiryReason.allCases {
        #expect(StopReason(parsing: StopReason.expired(reason).description) == .expired(reason))
    }
    #expect(ExpiryReason.allCases.count == 11)
}

@Test(arguments: [
    "", "Success", "success ", " success", "failure", "failure()", "failure(3)",
    "failure(exit )", "failure(exit 03)", "failure(exit +3)", "failure(exit 3", "failure(exit 3))",
    "failure(exit 99999999999)", "crashed(signal)", "crashed(11)", "crashed(signal 011)",
    "expired", "expired()", "expired(max_runtime)", "expired(MAX-RUNTIME)", "spawn-failed",
    "spawn-failed(", "spawn-failedx()", "cancelled()", "agent_restart", "unknown(x)",
])
func malformedStopReasonTextIsRejected(_ text: String) {
    #expect(StopReason(parsing: text) == nil)
}

@Test func decodingAnUnknownStopReasonThrows() {
    #expect(throws: DecodingError.self) {
        _ = try decoded(StopReason.self, from: "exploded")
    }
}
