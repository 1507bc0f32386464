// SPDX-License-Identifier: Apache-2.0
/// Reads systemd.time(7)'s calendar event grammar byte by byte, as systemd does: which texts it
/// accepts is checked against `systemd-analyze calendar` (`CalendarSystemdAgreementTests`).
///
/// `[WEEKDAYS] [[YEAR-]MONTH(-|~)DAY] [HOUR:MINUTE[:SECOND]] [ZONE]`, `@UNIXSECONDS [ZONE]`, or
/// a named shorthand. Weekdays: names or three-letter abbreviations (any case), lists with `,`
/// (a trailing comma allowed), ranges `A..B` or `A-B` that do not wrap the week. Fields: `*`
/// alone, or a comma list of `N`, `A..B`, `N/STEP`, `A..B/STEP`; seconds may have up to six
/// decimals. The zone is the last word: `UTC` (any case) or a name the zone lookup knows.
struct CalendarSpecScanner {
    struct Failure: Error {
        var text: String
        init(_ text: String) { self.text = text }
    }

    let bytes: [UInt8]
    var position = 0

    init(_ text: some StringProtocol) { bytes = Array(text.utf8) }

    var atEnd: Bool { position >= bytes.count }
    var current: UInt8? { atEnd ? nil : bytes[position] }
    func peek(_ offset: Int) -> UInt8? { position + offset < bytes.count ? bytes[position + offset] : nil }

    static let space = UInt8(ascii: " ")

    mutating func skipSpaces() { while current == Self.space { position += 1 } }

    var rest: String { String(decoding: bytes[min(position, bytes.count)...], as: UTF8.self) }

    // MARK: Weekdays

    static let weekdayNames: [(String, Int)] = [
        ("monday", 0), ("mon", 0), ("tuesday", 1), ("tue", 1), ("wednesday", 2), ("wed", 2),
        ("thursday", 3), ("thu", 3), ("friday", 4), ("fri", 4), ("saturday", 5), ("sat", 5),
        ("sunday", 6), ("sun", 6),
    ]

    /// The weekday name at the current position, longest first; nil when none starts here.
    func weekdayName() -> (length: Int, day: Int)? {
        for (name, day) in Self.weekdayNames {
            let name = Array(name.utf8)
            guard position + name.count <= bytes.count else { continue }
            let matches = name.indices.allSatisfy { index in
                let byte = bytes[position + index]
                return (byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte) == name[index]
            }
            if matches { return (name.count, day) }
        }
        return nil
    }

    /// The weekday part, if the text starts with one; 0 when it does not.
    mutating func weekdays() throws(Failure) -> UInt8 {
        var mask: UInt8 = 0
        var rangeStart: Int?
        var first = true
        let start = position
        func word(_ scanner: CalendarSpecScanner) -> String {
            var end = start
            while end < scanner.bytes.count, scanner.bytes[end] != CalendarSpecScanner.space { end += 1 }
            return TextBytes.quoted(String(decoding: scanner.bytes[start..<end], as: UTF8.self))
        }
        while true {
            guard let (length, day) = weekdayName() else {
                if first { return 0 }
                throw Failure("weekday \(word(self)) is not a weekday or a list of them (Mon..Fri, Sat,Sun)")
            }
            let after = peek(length)
            guard after == nil || after == UInt8(ascii: "-") || after == UInt8(ascii: ".")
                    || after == UInt8(ascii: ",") || after == Self.space else {
                throw Failure("weekday \(word(self)) is not a weekday (Mon Tue Wed Thu Fri Sat Sun)")
            }
            mask |= 1 << day
            if let low = rangeStart {
                guard low <= day else {
                    throw Failure("weekday range \(word(self)) runs backwards or wraps the week; "
                        + "list the days instead (Sat,Sun,Mon)")
                }
                for inner in low...day { mask |= 1 << inner }
            }
            position += length
            switch current {
            case nil:
                return mask
            case Self.space:
                skipSpaces()
                return mask
            case UInt8(ascii: "."):
                guard rangeStart == nil, peek(1) == UInt8(ascii: ".") else {
                    throw Failure("weekday \(word(self)) is not a weekday range (Mon..Fri)")
                }
                rangeStart = day
                position += 2
            case UInt8(ascii: "-"):
                guard rangeStart == nil else { throw Failure("weekday \(word(self)) has a range of a range") }
                rangeStart = day
                position += 1
            default:  // ","
                rangeStart = nil
                position += 1
            }
            if current == nil || current == Self.space {
                // A trailing comma ends the list (`Wed, 17:48`); an open range does not.
                guard rangeStart == nil else { throw Failure("weekday range \(word(self)) has no end") }
                skipSpaces()
                return mask
            }
            first = false
        }
    }

    // MARK: Fields

    static let maxItems = 240

    /// `*` (nil) or a comma list of items. Seconds (`micro`) are read in microseconds.
    mutating func chain(_ name: String, micro: Bool = false) throws(Failure) -> [CalendarComponent]? {
        if current == UInt8(ascii: "*") {
            position += 1
            if current == UInt8(ascii: "/") {
                throw Failure("\(name) \"*/…\": systemd.time(7) has no */STEP; write START/STEP (0/2, 1/2)")
            }
            return micro ? CalendarSpec.everySecond : nil
        }
        var items: [CalendarComponent] = []
        while true {
            guard items.count < Self.maxItems else { throw Failure("\(name) lists more than \(Self.maxItems) items") }
            items.append(try component(name, micro: micro))
            guard current == UInt8(ascii: ",") else { return items }
            position += 1
        }
    }

    mutating func component(_ name: String, micro: Bool) throws(Failure) -> CalendarComponent {
        let start = position
        var item = CalendarComponent(start: try decimal(name, micro: micro), stop: nil, repeatStep: 0)
        if current == UInt8(ascii: "."), peek(1) == UInt8(ascii: ".") {
            position += 2
            item.stop = try decimal(name, micro: micro)
            item.repeatStep = micro ? CalendarSpec.microsPerSecond : 1
        }
        if current == UInt8(ascii: "/") {
            position += 1
            item.repeatStep = try decimal("\(name) step", micro: micro)
            guard item.repeatStep > 0 else { throw Failure("\(name) step must not be 0") }
        }
        let allowed: [UInt8?] = [nil, Self.space, UInt8(ascii: ","), UInt8(ascii: "-"), UInt8(ascii: "~"),
                                 UInt8(ascii: ":")]
        guard allowed.contains(current) else {
            var end = position
            while end < bytes.count, !allowed.contains(bytes[end]) { end += 1 }
            let shown = TextBytes.quoted(String(decoding: bytes[start..<end], as: UTF8.self))
            throw Failure("\(name) \(shown) is not a number, a range A..B or a step N/STEP")
        }
        return item
    }

    /// Digits (and, for seconds, up to six decimals, rounded at the seventh).
    mutating func decimal(_ name: String, micro: Bool) throws(Failure) -> Int {
        let start = position
        var value = 0
        while let byte = current, TextBytes.isDigit(byte) {
            value = value * 10 + Int(byte - 0x30)
            guard value <= Int(Int32.max) else { throw Failure("\(name) is too large") }
            position += 1
        }
        guard position > start else {
            if current == UInt8(ascii: ",") || current == nil || current == Self.space {
                throw Failure("\(name) has an empty list item")
            }
            var end = position
            while end < bytes.count, bytes[end] != Self.space, bytes[end] != UInt8(ascii: ",") { end += 1 }
            let shown = TextBytes.quoted(String(decoding: bytes[start..<max(end, min(start + 1, bytes.count))], as: UTF8.self))
            throw Failure("\(name) \(shown) is not a number")
        }
        guard micro else { return value }
        value *= CalendarSpec.microsPerSecond
        if current == UInt8(ascii: "."), peek(1) != UInt8(ascii: ".") {
            position += 1
            var fraction = 0, digits = 0, roundUp = false
            while let byte = current, TextBytes.isDigit(byte) {
                if digits < 6 { fraction = fraction * 10 + Int(byte - 0x30) } else if digits == 6 { roundUp = byte >= 0x35 }
                digits += 1
                position += 1
            }
            for _ in digits..<max(digits, 6) { fraction *= 10 }
            value += fraction + (roundUp ? 1 : 0)
        }
        guard value <= Int(Int32.max) else { throw Failure("\(name) is too large") }
        return value
    }
}
