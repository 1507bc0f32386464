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
}
