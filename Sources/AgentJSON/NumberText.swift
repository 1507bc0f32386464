// SPDX-License-Identifier: Apache-2.0

/// Numbers in JSONEncoder's text: integers in decimal, floating-point values as Swift's
/// `description` (the shortest text that reads back the same) without a trailing `.0`.
enum NumberText {
    static func floating<T: BinaryFloatingPoint & CustomStringConvertible>(_ number: T) -> String? {
        guard number.isFinite else { return nil }
        var text = number.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    static func signed<T: FixedWidthInteger & SignedInteger>(_ number: T) -> EncodedValue {
        if let small = Int64(exactly: number) { return .signed(small) }
        return .number(number.description)
    }

    static func unsigned<T: FixedWidthInteger & UnsignedInteger>(_ number: T) -> EncodedValue {
        if let small = UInt64(exactly: number) { return .unsigned(small) }
        return .number(number.description)
    }

    /// Appends the decimal digits of `magnitude`, without allocating a String.
    static func appendDigits(of magnitude: UInt64, to bytes: inout [UInt8]) {
        let start = bytes.count
        var rest = magnitude
        repeat {
            bytes.append(UInt8(truncatingIfNeeded: rest % 10) &+ 0x30)
            rest /= 10
        } while rest > 0
        bytes[start...].reverse()
    }
}
