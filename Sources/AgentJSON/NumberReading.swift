// SPDX-License-Identifier: Apache-2.0

/// A scanned number as the type asked for, with JSONDecoder's rules: the text must be an RFC 8259
/// number; an integer type takes an integral value in its range (`1e2` and `3.0` too, `1.5` not);
/// a floating-point type takes any value that neither overflows nor underflows to zero.
enum NumberReading {
    struct NotRepresentable: Error {
        let text: String
    }

    static func integer<T: FixedWidthInteger>(_ bytes: [UInt8], _ range: Range<Int>, as type: T.Type) throws -> T {
        let digits = bytes[range]
        try validate(digits, at: range.lowerBound)
        if let value = plainInteger(digits, as: T.self) { return value }
        // JSONDecoder's slow path: through a Double, then exactly (its Decimal) above 2^53.
        let text = String(decoding: digits, as: UTF8.self)
        guard let double = Double(text), let value = T(exactly: double) else { throw NotRepresentable(text: text) }
        if double.magnitude < 9_007_199_254_740_992 { return value }
        guard let exact = truncatedInteger(digits, as: T.self) else { throw NotRepresentable(text: text) }
        return exact
    }

    static func floating<T: BinaryFloatingPoint & LosslessStringConvertible>(_ bytes: [UInt8], _ range: Range<Int>, as type: T.Type) throws -> T {
        let digits = bytes[range]
        try validate(digits, at: range.lowerBound)
        let text = String(decoding: digits, as: UTF8.self)
        guard let value = T(text), value.isFinite else { throw NotRepresentable(text: text) }
        // Rounded to zero though a digit before the exponent is not 0: out of range.
        if value == 0, digits.prefix(while: { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") })
            .contains(where: { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") }) {
            throw NotRepresentable(text: text)
        }
        return value
    }

    /// RFC 8259's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    static func validate(_ digits: ArraySlice<UInt8>, at offset: Int) throws {
        var index = digits.startIndex
        func isDigit(_ at: Int) -> Bool { at < digits.endIndex && digits[at] >= 0x30 && digits[at] <= 0x39 }
        func fail() -> JSONSyntaxError { JSONSyntaxError(reason: "invalid number", offset: offset + index - digits.startIndex) }
        if index < digits.endIndex, digits[index] == UInt8(ascii: "-") { index += 1 }
        guard isDigit(index) else { throw fail() }
        if digits[index] == UInt8(ascii: "0") {
            index += 1
            if isDigit(index) { throw fail() }
        } else {
            while isDigit(index) { index += 1 }
        }
        if index < digits.endIndex, digits[index] == UInt8(ascii: ".") {
            index += 1
            guard isDigit(index) else { throw fail() }
            while isDigit(index) { index += 1 }
        }
        if index < digits.endIndex, digits[index] == UInt8(ascii: "e") || digits[index] == UInt8(ascii: "E") {
            index += 1
            if index < digits.endIndex, digits[index] == UInt8(ascii: "+") || digits[index] == UInt8(ascii: "-") { index += 1 }
            guard isDigit(index) else { throw fail() }
            while isDigit(index) { index += 1 }
        }
        guard index == digits.endIndex else { throw fail() }
    }

    /// `-?[0-9]+` in range, or nil (JSONDecoder's fast path).
    private static func plainInteger<T: FixedWidthInteger>(_ digits: ArraySlice<UInt8>, as type: T.Type) -> T? {
        var index = digits.startIndex
        let negative = digits[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var value: T = 0
        while index < digits.endIndex {
            let byte = digits[index]
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let digit = T(byte - 0x30)
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowB) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflowA, !overflowB else { return nil }
            value = next
            index += 1
        }
        return value
    }

    /// The number's value truncated toward zero, as JSONDecoder's `Decimal` conversion gives it:
    /// the magnitude must fit in a UInt64 and then in `T` before the sign is applied.
    private static func truncatedInteger<T: FixedWidthInteger>(_ digits: ArraySlice<UInt8>, as type: T.Type) -> T? {
        var index = digits.startIndex
        let negative = digits[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var significand: [UInt8] = []
        var pointShift = 0
        var seenPoint = false
        while index < digits.endIndex, digits[index] != UInt8(ascii: "e"), digits[index] != UInt8(ascii: "E") {
            if digits[index] == UInt8(ascii: ".") {
                seenPoint = true
            } else {
                significand.append(digits[index] - 0x30)
                if seenPoint { pointShift -= 1 }
            }
            index += 1
        }
        var exponent = 0
        if index < digits.endIndex {
            index += 1
            var exponentNegative = false
            if digits[index] == UInt8(ascii: "-") || digits[index] == UInt8(ascii: "+") {
                exponentNegative = digits[index] == UInt8(ascii: "-")
                index += 1
            }
            while index < digits.endIndex {
                exponent = min(exponent * 10 + Int(digits[index] - 0x30), 100_000)
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        let scale = exponent + pointShift
        let kept = scale >= 0 ? significand.count : significand.count + scale
        guard kept > 0 else { return 0 }
        guard !negative || T.isSigned else { return nil }
        var magnitude: UInt64 = 0
        for position in 0..<(scale > 0 ? kept + scale : kept) {
            let digit = position < significand.count ? UInt64(significand[position]) : 0
            let (shifted, overflowA) = magnitude.multipliedReportingOverflow(by: 10)
            let (next, overflowB) = shifted.addingReportingOverflow(digit)
            guard !overflowA, !overflowB else { return nil }
            magnitude = next
        }
        guard let sized = T(exactly: magnitude) else { return nil }
        return negative ? 0 - sized : sized
    }
}
