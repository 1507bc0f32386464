// SPDX-License-Identifier: Apache-2.0
import AgentJSON
import Foundation
import Testing

/// Seeded random values: strings over U+0000–U+00FF and multi-byte scalars, Doubles and Floats
/// from random bit patterns, nested structures; both coders must agree on every one.
@Suite struct GeneratedValueTests {
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func generatedValuesCodeAsWithFoundation(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        for _ in 0..<40 {
            let value = Generated.make(&random, depth: 3)
            expectSameEncoding(value)
            try expectSameRoundTrip(value)
            let ours = try JSONLineEncoder().encode(value)
            #expect(try JSONLineDecoder().decode(Generated.self, from: ours) == value)
        }
    }

    @Test func everyDoubleFromRandomBitPatterns() throws {
        var random = SeededRandom(seed: 99)
        var doubles: [Double] = []
        var floats: [Float] = []
        while doubles.count < 20_000 {
            let double = Double(bitPattern: random.next())
            if double.isFinite { doubles.append(double) }
            let float = Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
            if float.isFinite { floats.append(float) }
        }
        expectSameEncoding(doubles)
        expectSameEncoding(floats)
        let bytes = try Reference.line(doubles)
        let decoded = try JSONLineDecoder().decode([Double].self, from: bytes)
        #expect(decoded.map(\.bitPattern) == doubles.map(\.bitPattern))
        let floatBytes = try Reference.line(floats)
        #expect(try JSONLineDecoder().decode([Float].self, from: floatBytes).map(\.bitPattern) == floats.map(\.bitPattern))
        expectSameDecoding([Double].self, bytes)
        expectSameDecoding([Float].self, floatBytes)
        // Into integer types too: most are fractions or out of range, and each must fail alike.
        for double in doubles.prefix(2000) {
            let text = try Reference.line(double)
            expectSameDecoding(Int64.self, text)
        }
    }
}

/// A value of many shapes.
struct Generated: Codable, Equatable {
    var text: String
    var texts: [String]
    var byName: [String: Int64]
    var byNumber: [Int: String]
    var double: Double
    var float: Float
    var unsigned: UInt64
    var small: Int8
    var flag: Bool
    var maybe: String?
    var holes: [Int?]
    var children: [Generated]

    static func make(_ random: inout SeededRandom, depth: Int) -> Generated {
        Generated(
            text: string(&random),
            texts: (0..<random.below(4)).map { _ in string(&random) },
            byName: Dictionary((0..<random.below(6)).map { _ in (string(&random), Int64(bitPattern: random.next())) },
                               uniquingKeysWith: { first, _ in first }),
            byNumber: Dictionary((0..<random.below(6)).map { _ in (Int(truncatingIfNeeded: random.next()) >> random.below(64), string(&random)) },
                                 uniquingKeysWith: { first, _ in first }),
            double: finiteDouble(&random),
            float: finiteFloat(&random),
            unsigned: random.next() >> random.below(64),
            small: Int8(truncatingIfNeeded: random.next()),
            flag: random.below(2) == 0,
            maybe: random.below(2) == 0 ? nil : string(&random),
            holes: (0..<random.below(5)).map { _ in random.below(3) == 0 ? nil : Int(truncatingIfNeeded: random.next()) },
            children: depth == 0 ? [] : (0..<random.below(3)).map { _ in make(&random, depth: depth - 1) })
    }

    static let wide: [Unicode.Scalar] = ["\u{100}", "\u{7FF}", "\u{800}", "\u{2028}", "\u{2029}", "\u{FEFF}",
                                          "\u{FFFD}", "\u{FFFF}", "\u{10000}", "\u{1F600}", "\u{10FFFF}", "\u{301}"]

    static func string(_ random: inout SeededRandom) -> String {
        var text = ""
        for _ in 0..<random.below(12) {
            if random.below(5) == 0 {
                text.unicodeScalars.append(wide[random.below(wide.count)])
            } else {
                text.unicodeScalars.append(Unicode.Scalar(UInt8(truncatingIfNeeded: random.next())))
            }
        }
        return text
    }

    static func finiteDouble(_ random: inout SeededRandom) -> Double {
        while true {
            let double = Double(bitPattern: random.next())
            if double.isFinite { return random.below(4) == 0 ? double.rounded() : double }
        }
    }

    static func finiteFloat(_ random: inout SeededRandom) -> Float {
        while true {
            let float = Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
            if float.isFinite { return float }
        }
    }
}
