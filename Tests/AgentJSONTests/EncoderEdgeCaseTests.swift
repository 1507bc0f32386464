// SPDX-License-Identifier: Apache-2.0
import AgentJSON
import Foundation
import Testing

/// JSONLineEncoder writes JSONEncoder's bytes ([.sortedKeys, .withoutEscapingSlashes], and with
/// .prettyPrinted), case by case.
@Suite struct EncoderEdgeCaseTests {
    /// swift-foundation's JSONWriter sorts by `key.utf8.lexicographicallyPrecedes`: bytes, not
    /// numeric order, not case-insensitive, not Unicode-aware.
    @Test func sortedKeysCompareUTF8Bytes() throws {
        let keys = ["b", "B", "a", "A", "a10", "a2", "a1", "_", "-", "0", "10", "9", "é", "e\u{301}z", "z",
                    "ä", "日本", "😀", "", " ", "aa", "a"]
        var object: [String: Int] = [:]
        for (index, key) in keys.enumerated() { object[key] = index }
        expectSameEncoding(object)
        let text = String(decoding: try JSONLineEncoder().encode(["b": 1, "B": 2, "a10": 3, "a2": 4]), as: UTF8.self)
        #expect(text == #"{"B":2,"a10":3,"a2":4,"b":1}"#)
    }

    @Test func stringsEscapeWhatJSONEncoderEscapes() {
        var everyByte = ""
        for scalar in 0...0xFF { everyByte.unicodeScalars.append(Unicode.Scalar(UInt8(scalar))) }
        let strings = [everyByte, "a/b\\c\"d", "\u{2028}\u{2029}", "\u{7F}", "tab\there", "😀 日本 é e\u{301}",
                       "", "\u{0}", "\u{1F}\u{10}\u{0F}", "/usr/lib/agentd/plugins/transfer"]
        for string in strings {
            expectSameEncoding(string)
            expectSameEncoding([string: string])
        }
        expectSameEncoding(strings)
    }

    @Test func integersOfEveryWidth() {
        expectSameEncoding([Int64.min, Int64.max, 0, -1, 1])
        expectSameEncoding([UInt64.max, 0])
        expectSameEncoding(IntegerBox())
        expectSameEncoding([Int8.min, Int8.max])
        expectSameEncoding([UInt8.max])
        expectSameEncoding([Int.min])
        expectSameEncoding([Int128.min, Int128.max])
        expectSameEncoding([UInt128.max])
    }

    @Test func floatingPointAsJSONEncoderWritesIt() {
        let doubles: [Double] = [0, -0.0, 1, -1, 0.1, 0.5, 1e-7, 1e21, 1e22, 123456789012345680000, 1e300,
                                 5e-324, .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                                 .pi, 2.5e-5, 9007199254740993, 0.30000000000000004, 100, 1e16, 1e15, 12.75]
        expectSameEncoding(doubles)
        for double in doubles {
            expectSameEncoding(double)
            expectSameEncoding(["x": double])
        }
        let floats: [Float] = [0, -0.0, 0.1, 1e-7, 1e21, 3.4028235e38, 1.0e-45, 16777217, 0.3]
        expectSameEncoding(floats)
        for float in floats { expectSameEncoding(["x": float]) }
    }

    @Test func nonFiniteNumbersThrowAsInJSONEncoder() {
        for value in [Double.nan, .infinity, -.infinity] {
            #expect(throws: EncodingError.self) { try JSONLineEncoder().encode(value) }
            #expect(throws: EncodingError.self) { try JSONLineEncoder().encode(["x": value]) }
            #expect(throws: EncodingError.self) { try JSONLineEncoder().encode([value]) }
            expectSameEncoding(["x": value])
        }
        #expect(throws: EncodingError.self) { try JSONLineEncoder().encode(Float.nan) }
        expectSameEncoding([Float.infinity])
    }

    @Test func nilIsNullOrLeftOut() {
        expectSameEncoding(Optionals(present: 3, absent: nil, forcedNull: nil))
        expectSameEncoding([Int?.none, 1, nil])
        expectSameEncoding([String?.none])
        expectSameEncoding(Int?.none)
        expectSameEncoding(["a": Int?.none])
    }

    @Test func emptyAndNestedContainers() {
        expectSameEncoding([Int]())
        expectSameEncoding([String: Int]())
        expectSameEncoding([[Int]]())
        expectSameEncoding([[Int]()])
        expectSameEncoding([[String: [Int]]()])
        expectSameEncoding(["a": [String: Int](), "b": [:]])
        expectSameEncoding(["outer": ["inner": [[1, 2], [], [3]]]])
        expectSameEncoding(Empty())
        expectSameEncoding([Empty(), Empty()])
        expectSameEncoding(Nested())
    }

    @Test func dictionariesKeyedByIntStringAndEnum() {
        expectSameEncoding([3: "c", -1: "a", 10: "b", 2: "d"])
        expectSameEncoding(["z": 1, "a": 2])
        expectSameEncoding([Color.red: 1, Color.blue: 2])
        expectSameEncoding([Plain.one: 1, Plain.two: 2])
        expectSameEncoding([UInt8(7): true])
        expectSameEncoding([1.5: "double keys are a list of pairs"])
        expectSameEncoding(Set(["b", "a"]).sorted())
    }

    /// JSONEncoder's dictionary keeps the last value for a key encoded twice, and returns the
    /// same container when one is asked for again.
    @Test func aKeyEncodedTwiceKeepsTheLastValue() throws {
        expectSameEncoding(Twice())
        #expect(String(decoding: try JSONLineEncoder().encode(Twice()), as: UTF8.self)
            == #"{"again":{"a":1,"b":2},"k":"second","list":[1,2]}"#)
        expectSameEncoding(CanonicallyEqualKeys())
    }

    @Test func superEncodersWriteWhereTheyWereMade() {
        expectSameEncoding(Derived())
        expectSameEncoding(UnkeyedSuper())
    }

    @Test func aValueThatEncodesNothing() {
        expectSameEncoding(["x": EncodesNothing()])
        expectSameEncoding([EncodesNothing()])
        #expect(throws: EncodingError.self) { try JSONLineEncoder().encode(EncodesNothing()) }
    }

    @Test func nestingDeeperThanJSONEncoderAllowsThrows() throws {
        for depth in [510, 511, 512, 513] {
            expectSameEncoding(Deep(depth: depth))
        }
        #expect(throws: EncodingError.self) { try JSONLineEncoder().encode(Deep(depth: 600)) }
    }
}

struct IntegerBox: Encodable {
    var a: Int8 = .min, b: Int16 = .min, c: Int32 = .min, d: Int64 = .min, e: Int = .max
    var f: UInt8 = .max, g: UInt16 = .max, h: UInt32 = .max, i: UInt64 = .max, j: UInt = .max
}

struct Optionals: Encodable {
    var present: Int?
    var absent: Int?
    var forcedNull: String?

    enum CodingKeys: String, CodingKey { case present, absent, forcedNull }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(present, forKey: .present)
        try container.encodeIfPresent(absent, forKey: .absent)
        try container.encode(forcedNull, forKey: .forcedNull)
        try container.encodeNil(forKey: .absent)
    }
}

struct Empty: Codable {}

struct Nested: Encodable {
    enum Keys: String, CodingKey { case info, list, deep }
    enum InfoKeys: String, CodingKey { case name, count }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        var info = container.nestedContainer(keyedBy: InfoKeys.self, forKey: .info)
        try info.encode("n", forKey: .name)
        try info.encode(2, forKey: .count)
        var list = container.nestedUnkeyedContainer(forKey: .list)
        try list.encode(1)
        var inner = list.nestedContainer(keyedBy: InfoKeys.self)
        try inner.encode("x/y", forKey: .name)
        var innerList = list.nestedUnkeyedContainer()
        try innerList.encodeNil()
        try list.encode(true)
        var deep = container.nestedContainer(keyedBy: Keys.self, forKey: .deep)
        _ = deep.nestedUnkeyedContainer(forKey: .list)
        _ = deep.nestedContainer(keyedBy: InfoKeys.self, forKey: .info)
    }
}

enum Color: String, Codable, CodingKeyRepresentable { case red, blue }
enum Plain: String, Codable { case one, two }

struct Twice: Encodable {
    enum Keys: String, CodingKey { case k, again, list }
    enum Inner: String, CodingKey { case a, b }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode("first", forKey: .k)
        try container.encode("second", forKey: .k)
        var first = container.nestedContainer(keyedBy: Inner.self, forKey: .again)
        try first.encode(1, forKey: .a)
        var second = container.nestedContainer(keyedBy: Inner.self, forKey: .again)
        try second.encode(2, forKey: .b)
        var list = container.nestedUnkeyedContainer(forKey: .list)
        try list.encode(1)
        var sameList = container.nestedUnkeyedContainer(forKey: .list)
        try sameList.encode(2)
        var again = encoder.container(keyedBy: Keys.self)
        try again.encode("second", forKey: .k)
    }
}

struct CanonicallyEqualKeys: Encodable {
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(1, forKey: Key(stringValue: "caf\u{E9}"))
        try container.encode(2, forKey: Key(stringValue: "cafe\u{301}"))
        try container.encode(3, forKey: Key(stringValue: "cafe"))
    }
}

class Base: Encodable {
    var base = "b/ase"
}

final class Derived: Base {
    var own = 1
    enum Keys: String, CodingKey { case own, parent }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(own, forKey: .own)
        try super.encode(to: container.superEncoder())
        try super.encode(to: container.superEncoder(forKey: .parent))
    }
}

struct UnkeyedSuper: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(1)
        let child = container.superEncoder()
        var single = child.singleValueContainer()
        try single.encode("from super")
        try container.encode(3)
    }
}

struct EncodesNothing: Encodable {
    func encode(to encoder: any Encoder) throws {}
}

/// Arrays nested `depth` deep.
struct Deep: Encodable {
    let depth: Int

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        if depth > 1 { try container.encode(Deep(depth: depth - 1)) }
    }
}
