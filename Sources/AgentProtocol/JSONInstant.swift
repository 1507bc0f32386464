// SPDX-License-Identifier: Apache-2.0
/// How a Swift value counts time since the Unix epoch. The value keeps the unit the agent
/// computes in; only its JSON form is the one convention (docs/json.md: RFC 3339 text).
public protocol EpochUnit: Sendable {
    associatedtype Value: Sendable & Hashable
    static func milliseconds(_ value: Value) -> Int64
    static func value(milliseconds: Int64) -> Value
    /// An agent older than docs/json.md sent the number itself, in this unit.
    static func value(legacyNumber: Double) -> Value
}

/// Whole seconds (`Int64`).
public enum EpochSeconds: EpochUnit {
    public static func milliseconds(_ value: Int64) -> Int64 { value.multipliedReportingOverflow(by: 1000).partialValue }
    public static func value(milliseconds: Int64) -> Int64 { milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000 }
    public static func value(legacyNumber: Double) -> Int64 { Int64(exactly: legacyNumber.rounded(.down)) ?? 0 }
}

/// Milliseconds (`Int64`).
public enum EpochMilliseconds: EpochUnit {
    public static func milliseconds(_ value: Int64) -> Int64 { value }
    public static func value(milliseconds: Int64) -> Int64 { milliseconds }
    public static func value(legacyNumber: Double) -> Int64 { Int64(exactly: legacyNumber.rounded()) ?? 0 }
}

/// Seconds with a fraction (`Double`), kept to the millisecond in JSON.
public enum EpochFractionalSeconds: EpochUnit {
    public static func milliseconds(_ value: Double) -> Int64 {
        value.isFinite ? Int64(exactly: (value * 1000).rounded()) ?? 0 : 0
    }
    public static func value(milliseconds: Int64) -> Double { Double(milliseconds) / 1000 }
    public static func value(legacyNumber: Double) -> Double { legacyNumber }
}

/// An instant that reads and writes `"2026-12-01T08:00:00.123Z"` in JSON (and still reads the
/// number an older agent sent).
@propertyWrapper
public struct Instant<Unit: EpochUnit>: Codable, Sendable, Hashable {
    public var wrappedValue: Unit.Value

    public init(wrappedValue: Unit.Value) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            guard let milliseconds = RFC3339.milliseconds(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "\"\(text)\" is not an RFC 3339 instant (e.g. 2026-12-01T08:00:00.123Z)")
            }
            wrappedValue = Unit.value(milliseconds: milliseconds)
        } else {
            wrappedValue = Unit.value(legacyNumber: try container.decode(Double.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(RFC3339.text(milliseconds: Unit.milliseconds(wrappedValue)))
    }
}

/// An instant that may be absent: left out of the JSON object when nil (docs/json.md: absent
/// values are omitted, never `null`).
@propertyWrapper
public struct OptionalInstant<Unit: EpochUnit>: Codable, Sendable, Hashable {
    public var wrappedValue: Unit.Value?

    public init(wrappedValue: Unit.Value?) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try Instant<Unit>(from: decoder).wrappedValue
    }

    public func encode(to encoder: any Encoder) throws {
        guard let value = wrappedValue else {
            var container = encoder.singleValueContainer()
            try container.encodeNil()
            return
        }
        try Instant<Unit>(wrappedValue: value).encode(to: encoder)
    }
}

// Synthesized Codable calls these for `@OptionalInstant` properties (more specific than the
// generic overloads), so nil leaves the key out and a missing key reads as nil, as for a plain
// optional.
extension KeyedEncodingContainer {
    public mutating func encode<Unit>(_ value: OptionalInstant<Unit>, forKey key: Key) throws {
        guard let instant = value.wrappedValue else { return }
        try encode(Instant<Unit>(wrappedValue: instant), forKey: key)
    }
}

extension KeyedDecodingContainer {
    public func decode<Unit>(_ type: OptionalInstant<Unit>.Type, forKey key: Key) throws -> OptionalInstant<Unit> {
        try decodeIfPresent(type, forKey: key) ?? OptionalInstant(wrappedValue: nil)
    }
}
