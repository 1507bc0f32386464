// SPDX-License-Identifier: Apache-2.0
/// Limits log lines per key (e.g. per plugin run) to `limit` per `interval`, counting what it
/// suppresses so that the caller can log "N lines suppressed" — journald's RateLimitBurst, applied
/// before the journal so a flooding plugin costs little.
///
/// Pure: it never reads the clock; every call takes `now`. A window starts with the first line of a
/// key and lasts `interval`; within it the first `limit` lines pass and the rest are counted.
public struct LogRateLimiter<Key: Hashable> {
    /// What to do with one line.
    public enum Admission: Equatable, Sendable {
        /// Write the line. When `suppressedBefore` > 0, first write that many lines were suppressed
        /// in the window that just ended.
        case emit(suppressedBefore: Int)
        /// Drop the line (it was counted).
        case suppress
    }

    private struct Window {
        var start: MonotonicInstant
        var emitted: Int
        var suppressed: Int
    }

    /// Lines allowed per window and key.
    public let limit: Int
    /// Window length.
    public let interval: Duration
    private var windows: [Key: Window] = [:]

    public init(limit: Int, interval: Duration) {
        self.limit = max(1, limit)
        self.interval = interval
    }

    /// Decides about one line of `key` at `now`.
    public mutating func admit(_ key: Key, now: MonotonicInstant) -> Admission {
        guard var window = windows[key], now < window.start + interval else {
            let carried = windows[key]?.suppressed ?? 0
            windows[key] = Window(start: now, emitted: 1, suppressed: 0)
            return .emit(suppressedBefore: carried)
        }
        defer { windows[key] = window }
        if window.emitted < limit {
            window.emitted += 1
            return .emit(suppressedBefore: 0)
        }
        window.suppressed += 1
        return .suppress
    }

    /// Lines of `key` suppressed in its current window and not reported yet.
    public func suppressedCount(_ key: Key) -> Int {
        windows[key]?.suppressed ?? 0
    }

    /// Forgets `key` (e.g. its run ended) and returns the count still to report.
    public mutating func finish(_ key: Key) -> Int {
        windows.removeValue(forKey: key)?.suppressed ?? 0
    }

    /// Ends every window that is over at `now`: returns the keys with unreported suppressed lines
    /// (report them now rather than when the key's next line comes, which may be never) and forgets
    /// all finished windows, which bounds the memory to the keys active within one interval.
    public mutating func expire(now: MonotonicInstant) -> [(key: Key, suppressed: Int)] {
        var reports: [(key: Key, suppressed: Int)] = []
        for (key, window) in windows where now >= window.start + interval {
            if window.suppressed > 0 { reports.append((key, window.suppressed)) }
            windows[key] = nil
        }
        return reports
    }

    /// The end of the earliest window that has suppressed lines to report, for a loop timer
    /// that calls `expire(now:)`; nil when nothing is waiting to be reported.
    public var nextReportDeadline: MonotonicInstant? {
        windows.values.filter { $0.suppressed > 0 }.map { $0.start + interval }.min()
    }

    /// Keys currently tracked.
    public var trackedKeys: Int { windows.count }

    /// The standard text for a report: "N lines suppressed" (singular for one).
    public static func suppressedMessage(_ count: Int) -> String {
        count == 1 ? "1 line suppressed" : "\(count) lines suppressed"
    }
}
