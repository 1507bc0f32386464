// SPDX-License-Identifier: Apache-2.0
/// Decides which progress directives to print, and when: `PROGRESS=` at most ten times a second and
/// only when bytes arrived, `SUBTITLE=` (done, rate, time left) at most once a second. Time comes in
/// from the caller as a monotonic `Duration` since the transfer started.
public struct ProgressReport: Sendable {
    public static let progressInterval: Duration = .milliseconds(100)
    public static let subtitleInterval: Duration = .seconds(1)

    private var lastProgressAt: Duration?
    private var lastProgressBytes: Int64 = -1
    private var lastSubtitleAt: Duration?
    /// Bytes on disk when this run began: the rate counts only what this run received.
    private let startBytes: Int64

    public init(startBytes: Int64) {
        self.startBytes = startBytes
    }

    /// The lines to print now for `bytes` of `total` (nil: unknown length) at `now`.
    public mutating func lines(bytes: Int64, total: Int64?, now: Duration) -> [String] {
        var lines: [String] = []
        if bytes != lastProgressBytes, due(lastProgressAt, now, Self.progressInterval),
           let total, total > 0, bytes <= total {
            lines.append("PROGRESS=\(bytes)/\(total)")
            lastProgressAt = now
            lastProgressBytes = bytes
        }
        if due(lastSubtitleAt, now, Self.subtitleInterval) && now > .zero {
            lines.append("SUBTITLE=" + subtitle(bytes: bytes, total: total, elapsed: now))
            lastSubtitleAt = now
        }
        return lines
    }

    /// The lines for the end of a complete transfer, unthrottled.
    public func finalLines(bytes: Int64) -> [String] {
        bytes > 0 ? ["PROGRESS=\(bytes)/\(bytes)", "SUBTITLE=\(ByteCount.text(bytes)) done"] : []
    }

    private func due(_ last: Duration?, _ now: Duration, _ interval: Duration) -> Bool {
        guard let last else { return true }
        return now - last >= interval
    }

    /// "12.3 MB of 50.0 MB, 4.1 MB/s, 9 s left".
    public func subtitle(bytes: Int64, total: Int64?, elapsed: Duration) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(max(0, bytes - startBytes)) / seconds : 0
        var text = ByteCount.text(bytes)
        if let total { text += " of " + ByteCount.text(total) }
        text += ", " + ByteCount.text(Int64(rate)) + "/s"
        if let total, rate > 0, total >= bytes {
            text += ", " + TimeLeft.text(seconds: Double(total - bytes) / rate) + " left"
        }
        return text
    }
}

/// Decimal units, as download tools show them: "999 B", "1.5 kB", "12.3 MB", "1.0 GB".
public enum ByteCount {
    public static func text(_ bytes: Int64) -> String {
        let units = ["kB", "MB", "GB", "TB"]
        guard bytes >= 1000 else { return "\(bytes) B" }
        var value = Double(bytes) / 1000
        var unit = 0
        while value >= 999.95 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return oneDecimal(value) + " " + units[unit]
    }

    static func oneDecimal(_ value: Double) -> String {
        let tenths = Int64((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}

/// "9 s", "4 min 05 s", "2 h 13 min".
public enum TimeLeft {
    public static func text(seconds: Double) -> String {
        let total = Int64(seconds.rounded(.up))
        if total < 60 { return "\(total) s" }
        if total < 3600 {
            let s = total % 60
            return "\(total / 60) min " + (s < 10 ? "0" : "") + "\(s) s"
        }
        return "\(total / 3600) h \((total % 3600) / 60) min"
    }
}
