// SPDX-License-Identifier: Apache-2.0
/// One Pressure Stall Information file (`/proc/pressure/{cpu,memory,io}`):
/// ```
/// some avg10=0.12 avg60=0.05 avg300=0.01 total=123456
/// full avg10=0.00 avg60=0.00 avg300=0.00 total=6543
/// ```
/// `some`: the share of time at least one task stalled on the resource; `full`: all non-idle
/// tasks stalled at once. The `full` line is absent for cpu before Linux 5.13 (and meaningless
/// for cpu at system level afterwards, where it reads zero).
public struct PressureReading: Sendable, Hashable {
    /// One line: running averages in percent over 10 s, 60 s and 300 s, and the total stall time.
    public struct Line: Sendable, Hashable {
        public var avg10: Double
        public var avg60: Double
        public var avg300: Double
        /// Total stall time in microseconds since boot.
        public var totalMicroseconds: UInt64

        public init(avg10: Double, avg60: Double, avg300: Double, totalMicroseconds: UInt64) {
            self.avg10 = avg10
            self.avg60 = avg60
            self.avg300 = avg300
            self.totalMicroseconds = totalMicroseconds
        }
    }

    public var some: Line
    /// nil when the file has no `full` line.
    public var full: Line?

    public init(some: Line, full: Line? = nil) {
        self.some = some
        self.full = full
    }

    /// Parses the file's text. Unknown lines and unknown `key=value` fields are ignored (the
    /// format may grow); nil when there is no well-formed `some` line.
    public init?(text: String) {
        var some: Line?
        var full: Line?
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let words = rawLine.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let head = words.first else { continue }
            let parsed = Self.parseFields(words.dropFirst())
            switch head {
            case "some": if some == nil { some = parsed }
            case "full": if full == nil { full = parsed }
            default: continue
            }
        }
        guard let some else { return nil }
        self.init(some: some, full: full)
    }

    /// Parses the bytes read from the file (UTF-8; invalid bytes make no valid line).
    public init?(bytes: [UInt8]) {
        self.init(text: String(decoding: bytes, as: UTF8.self))
    }

    private static func parseFields(_ fields: ArraySlice<Substring>) -> Line? {
        var avg10: Double?
        var avg60: Double?
        var avg300: Double?
        var total: UInt64?
        for field in fields {
            guard let equals = field.firstIndex(of: "=") else { return nil }
            let key = field[..<equals]
            let value = field[field.index(after: equals)...]
            switch key {
            case "avg10": avg10 = percent(value)
            case "avg60": avg60 = percent(value)
            case "avg300": avg300 = percent(value)
            case "total": total = UInt64(value)
            default: continue
            }
        }
        guard let avg10, let avg60, let avg300, let total else { return nil }
        return Line(avg10: avg10, avg60: avg60, avg300: avg300, totalMicroseconds: total)
    }

    /// A finite, non-negative percentage (`nan`, `inf` and negatives rejected).
    private static func percent(_ text: Substring) -> Double? {
        guard let value = Double(text), value.isFinite, value >= 0 else { return nil }
        return value
    }
}
