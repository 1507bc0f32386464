// SPDX-License-Identifier: Apache-2.0
/// Progress reported by a plugin: `completed` of `total` units, with `0 <= completed <= total`
/// and `total > 0` (the initializer refuses anything else, so a `Progress` is always in range).
public struct Progress: Hashable, Sendable {
    public let completed: Int64
    public let total: Int64
    /// `PROGRESS=N/M` counts units (kept as completedUnitCount/totalUnitCount, as
    /// ProgressReporting has them); `N%` is a fraction only.
    public let countsUnits: Bool

    /// nil when the pair is out of range: negative, past the total, or a total of zero.
    public init?(completed: Int64, total: Int64, countsUnits: Bool = true) {
        guard total > 0, completed >= 0, completed <= total else { return nil }
        self.completed = completed
        self.total = total
        self.countsUnits = countsUnits
    }

    /// The unit counts of an `N/M` line; nil for `N%`.
    public var completedUnitCount: Int64? { countsUnits ? completed : nil }
    public var totalUnitCount: Int64? { countsUnits ? total : nil }

    /// `completed / total`, in 0...1.
    public var fraction: Double {
        Double(completed) / Double(total)
    }
}

/// Why a directive line was ignored. Invalid directives are counted and ignored by the caller,
/// never fatal to the run (DESIGN §5).
public enum InvalidDirective: Hashable, Sendable, CustomStringConvertible {
    /// A well-formed `PROGRESS=` whose numbers are out of range: `7/3`, `1/0`, `-1/5`, `150%`,
    /// or a number too large for 64 bits.
    case progressOutOfRange
    /// A `PROGRESS=` value that is not `N/M` or `N%`: `abc`, `5/`, `/5`, `4.5%`, empty.
    case progressMalformed
    /// A `CHECKPOINT=` value over ``PluginDirective/maxCheckpointBytes``; the previous one is kept.
    case checkpointTooLong
    /// A `CHECKPOINT=` value with a NUL byte: it is handed back in `AGENTD_CHECKPOINT`, and an
    /// environment variable cannot carry one.
    case checkpointContainsNUL
    /// A `RESULT=` value over ``PluginDirective/maxResultBytes``, or one whose line was cut at
    /// the 4096-byte line limit: a cut result is a wrong one, so the previous one is kept.
    case resultTooLong
    /// A `RESULT=` value with a NUL byte: it is handed on in `AGENTD_PREVIOUS_RESULT`.
    case resultContainsNUL

    public var description: String {
        switch self {
        case .progressOutOfRange: "PROGRESS= out of range"
        case .progressMalformed: "PROGRESS= is not N/M or N%"
        case .checkpointTooLong: "CHECKPOINT= longer than \(PluginDirective.maxCheckpointBytes) bytes"
        case .checkpointContainsNUL: "CHECKPOINT= contains a NUL byte"
        case .resultTooLong: "RESULT= longer than \(PluginDirective.maxResultBytes) bytes or cut at the line limit"
        case .resultContainsNUL: "RESULT= contains a NUL byte"
        }
    }
}

/// One line of a plugin's stdout, classified (DESIGN §5).
///
/// Keys are exact and case-sensitive at the start of the line; any other line is a log line.
/// Text values are UTF-8 with invalid sequences replaced by U+FFFD, so a plugin can never make
/// parsing fail — only produce an ``invalid(_:)`` directive for the caller to count and ignore.
public enum PluginDirective: Hashable, Sendable {
    case progress(Progress)
    case title(String)
    case subtitle(String)
    /// The checkpoint to persist and hand back as `AGENTD_CHECKPOINT`; may be empty.
    case checkpoint(String)
    case status(String)
    /// What the run hands on: kept in its record and given to an `OnSuccess=` run as
    /// `AGENTD_PREVIOUS_RESULT`; the last one wins; may be empty.
    case result(String)
    case log(String)
    case invalid(InvalidDirective)

    /// The largest `CHECKPOINT=` value accepted, in bytes of its (repaired) UTF-8.
    public static let maxCheckpointBytes = 1024
    /// The largest `RESULT=` value accepted, in bytes of its (repaired) UTF-8: within DESIGN §5's
    /// 4 KiB, as much as fits a line of the 4096-byte line limit after the key (4089 bytes).
    public static let maxResultBytes = 4096 - "RESULT=".utf8.count

    /// Classifies `line` (without its `\n`; a trailing `\r` is stripped). `wasCut`: the line
    /// splitter cut it at its length limit (only the start of the line is here).
    public static func parse(_ line: [UInt8], wasCut: Bool = false) -> PluginDirective {
        line.withUnsafeBufferPointer { parse($0, wasCut: wasCut) }
    }

    /// Classifies a line borrowed from a reader's buffer, as ``LineSplitter`` emits it, so that
    /// the hot path never copies: a `PROGRESS=` line allocates nothing at all.
    public static func parse(_ line: UnsafeBufferPointer<UInt8>, wasCut: Bool = false) -> PluginDirective {
        var count = line.count
        if count > 0, line[count - 1] == DirectiveBytes.carriageReturn { count -= 1 }
        let bytes = UnsafeBufferPointer(rebasing: line[0..<count])
        guard let first = bytes.first else { return .log("") }

        // Dispatch on the first byte so that a log line costs one comparison, not five.
        switch first {
        case UInt8(ascii: "P"):
            if let value = DirectiveBytes.value(of: bytes, after: "PROGRESS=") {
                return parseProgress(value)
            }
        case UInt8(ascii: "T"):
            if let value = DirectiveBytes.value(of: bytes, after: "TITLE=") {
                return .title(DirectiveBytes.text(value))
            }
        case UInt8(ascii: "S"):
            if let value = DirectiveBytes.value(of: bytes, after: "SUBTITLE=") {
                return .subtitle(DirectiveBytes.text(value))
            }
            if let value = DirectiveBytes.value(of: bytes, after: "STATUS=") {
                return .status(DirectiveBytes.text(value))
            }
        case UInt8(ascii: "C"):
            if let value = DirectiveBytes.value(of: bytes, after: "CHECKPOINT=") {
                return parseCheckpoint(value)
            }
        case UInt8(ascii: "R"):
            if let value = DirectiveBytes.value(of: bytes, after: "RESULT=") {
                return parseResult(value, wasCut: wasCut)
            }
        default:
            break
        }
        return .log(DirectiveBytes.string(bytes))
    }

    /// `N/M` or `N%`, optionally surrounded by spaces or tabs (a harmless slip a plugin author
    /// should not be punished for); nothing else.
    private static func parseProgress(_ raw: UnsafeBufferPointer<UInt8>) -> PluginDirective {
        var lower = 0
        var upper = raw.count
        while lower < upper, DirectiveBytes.isBlank(raw[lower]) { lower += 1 }
        while upper > lower, DirectiveBytes.isBlank(raw[upper - 1]) { upper -= 1 }
        guard lower < upper else { return .invalid(.progressMalformed) }

        if raw[upper - 1] == UInt8(ascii: "%") {
            let percent = DirectiveBytes.integer(raw, lower..<(upper - 1))
            switch percent {
            case .malformed: return .invalid(.progressMalformed)
            case .overflow: return .invalid(.progressOutOfRange)
            case .value(let value):
                guard let progress = Progress(completed: value, total: 100, countsUnits: false) else {
                    return .invalid(.progressOutOfRange)
                }
                return .progress(progress)
            }
        }

        var slash = lower
        while slash < upper, raw[slash] != UInt8(ascii: "/") { slash += 1 }
        guard slash < upper else { return .invalid(.progressMalformed) }
        let completed = DirectiveBytes.integer(raw, lower..<slash)
        let total = DirectiveBytes.integer(raw, (slash + 1)..<upper)
        // Syntax first: `abc/99999999999999999999` is malformed, not out of range.
        switch (completed, total) {
        case (.malformed, _), (_, .malformed):
            return .invalid(.progressMalformed)
        case (.overflow, _), (_, .overflow):
            return .invalid(.progressOutOfRange)
        case (.value(let done), .value(let all)):
            guard let progress = Progress(completed: done, total: all) else {
                return .invalid(.progressOutOfRange)
            }
            return .progress(progress)
        }
    }

    private static func parseCheckpoint(_ raw: UnsafeBufferPointer<UInt8>) -> PluginDirective {
        // Repair never shrinks a value (each bad sequence becomes a 3-byte U+FFFD), so a raw
        // value over the limit is refused before paying for the decode.
        guard raw.count <= maxCheckpointBytes else { return .invalid(.checkpointTooLong) }
        guard !raw.contains(0) else { return .invalid(.checkpointContainsNUL) }
        let text = DirectiveBytes.string(raw)
        // The limit applies to what is persisted and handed back, i.e. the repaired text.
        guard text.utf8.count <= maxCheckpointBytes else { return .invalid(.checkpointTooLong) }
        return .checkpoint(text)
    }

    private static func parseResult(_ raw: UnsafeBufferPointer<UInt8>, wasCut: Bool) -> PluginDirective {
        // A cut line holds only the start of the result: handing that on would be worse than
        // keeping the previous one.
        guard !wasCut, raw.count <= maxResultBytes else { return .invalid(.resultTooLong) }
        guard !raw.contains(0) else { return .invalid(.resultContainsNUL) }
        let text = DirectiveBytes.string(raw)
        guard text.utf8.count <= maxResultBytes else { return .invalid(.resultTooLong) }
        return .result(text)
    }
}

/// Byte-level helpers for directive parsing; kept apart from the config parser's helpers so the
/// hot path stays small and free of anything it does not need.
enum DirectiveBytes {
    static let carriageReturn: UInt8 = 0x0D

    @inline(__always)
    static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// The bytes after `key` when `line` starts with it, compared bytewise.
    @inline(__always)
    static func value(
        of line: UnsafeBufferPointer<UInt8>, after key: StaticString
    ) -> UnsafeBufferPointer<UInt8>? {
        let keyCount = key.utf8CodeUnitCount
        guard line.count >= keyCount else { return nil }
        let keyBytes = key.utf8Start
        for index in 0..<keyCount where line[index] != keyBytes[index] {
            return nil
        }
        return UnsafeBufferPointer(rebasing: line[keyCount...])
    }

    /// UTF-8 text with invalid sequences replaced by U+FFFD.
    @inline(__always)
    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// Free text shown to people and kept (`TITLE=`, `SUBTITLE=`, `STATUS=`): a NUL byte, which
    /// no display, log or C string holds, becomes U+FFFD, as a byte that is no UTF-8 does.
    static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let decoded = string(bytes)
        guard bytes.contains(0) else { return decoded }
        return String(decoded.unicodeScalars.map { $0 == "\u{0}" ? "\u{FFFD}" : Character($0) })
    }

    enum Integer {
        case value(Int64)
        case overflow
        case malformed
    }

    /// A decimal integer with an optional leading `-`, at least one digit, nothing else.
    /// A negative value parses (it is out of range, not malformed); too many digits overflow.
    static func integer(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Integer {
        var index = range.lowerBound
        let negative = index < range.upperBound && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        // Up to 18 digits always fit in an Int64: no overflow check per digit on the hot path.
        guard index < range.upperBound, range.upperBound - index <= 18 else {
            return checkedInteger(bytes, range)
        }
        var value: Int64 = 0
        while index < range.upperBound {
            let digit = bytes[index] &- 0x30
            guard digit < 10 else { return .malformed }
            value = value &* 10 &+ Int64(digit)
            index += 1
        }
        return .value(negative ? -value : value)
    }

    /// `integer` for any length, checking each step for overflow.
    private static func checkedInteger(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Integer {
        var index = range.lowerBound
        var negative = false
        if index < range.upperBound, bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < range.upperBound else { return .malformed }
        var value: Int64 = 0
        var overflowed = false
        while index < range.upperBound {
            let byte = bytes[index]
            guard byte >= 0x30, byte <= 0x39 else { return .malformed }
            // Keep scanning after an overflow: a later non-digit still makes it malformed.
            if !overflowed {
                let (times10, o1) = value.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(Int64(byte &- 0x30))
                if o1 || o2 { overflowed = true } else { value = sum }
            }
            index += 1
        }
        if overflowed { return .overflow }
        return .value(negative ? -value : value)
    }
}
