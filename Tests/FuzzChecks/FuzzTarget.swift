// SPDX-License-Identifier: Apache-2.0
/// The parsers input reaches, each with the invariants a fuzzer checks on any bytes (issue 18).
/// Shared by the libFuzzer executables (Fuzz/Package.swift) and FuzzRegressionTests, which replay
/// the seed corpora and every reproducer through the same checks.
public enum FuzzTarget: String, CaseIterable, Sendable {
    case config
    case execLine = "exec-line"
    case timeSpan = "time-span"
    case calendar
    case directive
    case uevent
    case netlink
    case control

    /// nil when `bytes` kept every invariant; otherwise what broke, for the crash report.
    public func check(_ bytes: [UInt8]) -> String? {
        switch self {
        case .config: ConfigChecks.check(bytes)
        case .execLine: ExecLineChecks.check(bytes)
        case .timeSpan: TimeSpanChecks.check(bytes)
        case .calendar: CalendarChecks.check(bytes)
        case .directive: DirectiveChecks.check(bytes)
        case .uevent: UeventChecks.check(bytes)
        case .netlink: NetlinkChecks.check(bytes)
        case .control: ControlChecks.check(bytes)
        }
    }

    /// The libFuzzer entry: a broken invariant stops the run so libFuzzer keeps the input.
    public func run(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        if let failure = check(bytes) {
            fatalError("fuzz target \(rawValue): \(failure)")
        }
        return 0
    }
}

/// Chunk sizes derived from the input itself, so a reproducer replays the same chunking.
enum Chunking {
    static func split(_ bytes: [UInt8], seed: UInt8) -> [ArraySlice<UInt8>] {
        var chunks: [ArraySlice<UInt8>] = []
        var start = 0
        var state = UInt32(seed) &+ 1
        while start < bytes.count {
            state = state &* 1_103_515_245 &+ 12_345
            let length = Int((state >> 16) % 17)
            let end = min(bytes.count, start + length)
            chunks.append(bytes[start..<end])
            start = end
        }
        return chunks
    }
}
