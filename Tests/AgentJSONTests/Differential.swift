// SPDX-License-Identifier: Apache-2.0
import AgentJSON
import Foundation
import Testing

/// The reference: FoundationEssentials' coder with the options the agent used before AgentJSON.
enum Reference {
    static func line<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    static func pretty<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    static func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws -> T {
        try JSONDecoder().decode(type, from: Data(bytes))
    }
}

/// Encodes with both coders, line and pretty, and expects the same bytes (or both to throw).
func expectSameEncoding<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) {
    for pretty in [false, true] {
        let theirs = Result { try pretty ? Reference.pretty(value) : Reference.line(value) }
        let ours = Result { try JSONLineEncoder(prettyPrinted: pretty).encode(value) }
        switch (theirs, ours) {
        case (.success(let expected), .success(let actual)):
            #expect(String(decoding: actual, as: UTF8.self) == String(decoding: expected, as: UTF8.self),
                    sourceLocation: sourceLocation)
            #expect(actual == expected, sourceLocation: sourceLocation)
        case (.failure, .failure):
            break
        case (.success(let expected), .failure(let error)):
            Issue.record("JSONEncoder wrote \(String(decoding: expected, as: UTF8.self)); ours threw \(error)",
                         sourceLocation: sourceLocation)
        case (.failure(let error), .success(let actual)):
            Issue.record("JSONEncoder threw \(error); ours wrote \(String(decoding: actual, as: UTF8.self))",
                         sourceLocation: sourceLocation)
        }
    }
}

/// What decoding `bytes` gave: the value as JSONEncoder writes it (so any Encodable compares), or
/// the kind of error.
enum DecodeOutcome: Equatable, CustomStringConvertible {
    case value(String)
    case failure(String)

    init<T: Codable>(_ decode: () throws -> T) {
        do {
            self = .value(String(decoding: try Reference.line(decode()), as: UTF8.self))
        } catch let error as DecodingError {
            switch error {
            case .typeMismatch: self = .failure("typeMismatch")
            case .valueNotFound: self = .failure("valueNotFound")
            case .keyNotFound: self = .failure("keyNotFound")
            case .dataCorrupted: self = .failure("dataCorrupted")
            @unknown default: self = .failure("unknown")
            }
        } catch {
            self = .failure("\(type(of: error))")
        }
    }

    var description: String {
        switch self {
        case .value(let text): text
        case .failure(let kind): "error \(kind)"
        }
    }
}

/// Decodes with both decoders and expects the same value, or the same kind of error.
func expectSameDecoding<T: Codable>(_ type: T.Type, _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
    let theirs = DecodeOutcome { try Reference.decode(type, bytes) }
    let ours = DecodeOutcome { try JSONLineDecoder().decode(type, from: bytes) }
    #expect(ours == theirs, "input: \(String(decoding: bytes, as: UTF8.self).debugDescription)", sourceLocation: sourceLocation)
}

func expectSameDecoding<T: Codable>(_ type: T.Type, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    expectSameDecoding(type, Array(text.utf8), sourceLocation: sourceLocation)
}

/// Encodes with JSONEncoder, then expects both decoders to read it back the same.
func expectSameRoundTrip<T: Codable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
    expectSameDecoding(T.self, try Reference.line(value), sourceLocation: sourceLocation)
    expectSameDecoding(T.self, try Reference.pretty(value), sourceLocation: sourceLocation)
}
