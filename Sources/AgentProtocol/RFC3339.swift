// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// Instants as JSON text (docs/json.md): RFC 3339 in UTC with milliseconds,
/// `2026-12-01T08:00:00.123Z`. Pure arithmetic on the proleptic Gregorian calendar, so the same
/// instant always reads the same, whatever the machine's time zone.
public enum RFC3339 {
    private static let millisecondsPerDay: Int64 = 86_400_000

    /// Unix seconds of 0001-01-01T00:00:00Z through 9999-12-31T23:59:59Z: the instants a request
    /// may name and people are shown (a time past them could be neither written nor read back).
    public static let writableSeconds: ClosedRange<Double> = -62_135_596_800...253_402_300_799

    /// `2026-12-01T08:00:00.123Z` for milliseconds since the Unix epoch.
    public static func text(milliseconds: Int64) -> String {
        let days = CivilDateTime.floorDivide(milliseconds, millisecondsPerDay)
        let ofDay = milliseconds - days * millisecondsPerDay
        let (year, month, day) = CivilDateTime.civil(fromDays: days)
        let seconds = ofDay / 1000
        if (0...9999).contains(year) {
            // The usual case in one allocation: a `status` formats a hundred instants, and the
            // interpolation below made fifteen strings for each.
            return String(unsafeUninitializedCapacity: 24) { text in
                var at = 0
                func put(_ value: Int64, _ width: Int) {
                    var rest = value
                    for index in stride(from: at + width - 1, through: at, by: -1) {
                        text[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                        rest /= 10
                    }
                    at += width
                }
                func put(_ character: Unicode.Scalar) {
                    text[at] = UInt8(ascii: character)
                    at += 1
                }
                put(year, 4); put("-"); put(Int64(month), 2); put("-"); put(Int64(day), 2); put("T")
                put(seconds / 3600, 2); put(":"); put(seconds / 60 % 60, 2); put(":"); put(seconds % 60, 2)
                put("."); put(ofDay % 1000, 3); put("Z")
                return at
            }
        }
        return "\(pad(year, 4))-\(pad(Int64(month), 2))-\(pad(Int64(day), 2))T\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):"
            + "\(pad(seconds % 60, 2)).\(pad(ofDay % 1000, 3))Z"
    }

    /// Milliseconds since the epoch for `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, or nil.
    /// Digits past milliseconds are dropped (truncated, as the text form never has them).
    public static func milliseconds(_ text: String) -> Int64? {
        var reader = DigitReader(Array(text.utf8))
        guard let year = reader.number(4), reader.skip("-"), let month = reader.number(2), reader.skip("-"),
              let day = reader.number(2), reader.skip("T") || reader.skip("t"),
              let hour = reader.number(2), reader.skip(":"), let minute = reader.number(2), reader.skip(":"),
              let second = reader.number(2),
              (1...12).contains(month), (1...Int64(CivilDateTime.daysIn(month: Int(month), year: year))).contains(day),
              hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction: Int64 = 0
        if reader.skip(".") {
            guard let digits = reader.fraction() else { return nil }
            fraction = digits
        }
        guard let offset = reader.offsetSeconds(), reader.atEnd else { return nil }
        let seconds = CivilDateTime.days(year: year, month: Int(month), day: Int(day)) * 86_400 + hour * 3600 + minute * 60 + second - offset
        return seconds * 1000 + fraction
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

}

/// Reads the fixed-width fields of an RFC 3339 timestamp.
private struct DigitReader {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    mutating func number(_ width: Int) -> Int64? {
        guard index + width <= bytes.count else { return nil }
        var value: Int64 = 0
        for byte in bytes[index..<index + width] {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int64(byte - 0x30)
        }
        index += width
        return value
    }

    /// Milliseconds of a fraction of at least one digit (`.1` is 100).
    mutating func fraction() -> Int64? {
        var value: Int64 = 0
        var count = 0
        while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
            if count < 3 { value = value * 10 + Int64(bytes[index] - 0x30) }
            count += 1
            index += 1
        }
        guard count > 0 else { return nil }
        for _ in count..<max(count, 3) { value *= 10 }
        return value
    }

    /// `Z` is 0; `+01:00` is 3600 (local time ahead of UTC).
    mutating func offsetSeconds() -> Int64? {
        if skip("Z") || skip("z") { return 0 }
        let sign: Int64
        if skip("+") { sign = 1 } else if skip("-") { sign = -1 } else { return nil }
        guard let hours = number(2), skip(":"), let minutes = number(2), hours < 24, minutes < 60 else { return nil }
        return sign * (hours * 3600 + minutes * 60)
    }
}
