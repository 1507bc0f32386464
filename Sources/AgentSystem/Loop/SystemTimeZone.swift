// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Glibc

/// The system's time zone (`TZ`, `/etc/localtime`) as the core's local-time rules: the offset
/// `localtime_r` reports for each instant, so `Schedule=` slots and `Window=` openings follow
/// daylight saving transitions before they happen.
public struct SystemTimeZone: UTCOffsetRule {
    public init() {}

    public func utcOffset(at unixSeconds: Int64) -> Int {
        var time = time_t(unixSeconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return 0 }
        return Int(parts.tm_gmtoff)
    }
}

/// `/etc/machine-id`: what `RandomizedDelay=` offsets derive from (stable per machine, different
/// across a fleet), as systemd's `FixedRandomDelay=` does.
public enum MachineID {
    public static let path = "/etc/machine-id"

    /// The id's first line, or "" when the file is missing or unreadable (offsets are then the
    /// same on every such machine, still stable).
    public static func read(_ path: String = MachineID.path) -> String {
        guard let text = SmallFile.read(path, limit: 4096) else { return "" }
        return String(text.prefix { $0 != "\n" })
    }
}
