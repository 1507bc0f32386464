/// Times as people read them: `4 min`, `2 h 5 min`, `3 d`.
public enum HumanTime {
    public static func span(seconds: Int64) -> String {
        switch seconds {
        case ..<60: return "\(max(0, seconds)) s"
        case ..<3600: return "\(seconds / 60) min"
        case ..<86_400:
            let minutes = (seconds % 3600) / 60
            return minutes == 0 ? "\(seconds / 3600) h" : "\(seconds / 3600) h \(minutes) min"
        default:
            let hours = (seconds % 86_400) / 3600
            return hours == 0 ? "\(seconds / 86_400) d" : "\(seconds / 86_400) d \(hours) h"
        }
    }

    /// `2 h ago`, `just now`.
    public static func ago(seconds: Int64) -> String {
        seconds < 5 ? "just now" : span(seconds: seconds) + " ago"
    }

    /// Durations of runs: `0.4 s`, `12.0 s`, then `span`.
    public static func precise(milliseconds: Int64) -> String {
        guard milliseconds < 60_000 else { return span(seconds: milliseconds / 1000) }
        let tenths = max(0, milliseconds) / 100
        return "\(tenths / 10).\(tenths % 10) s"
    }
}
