// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The local time at the start of a human log line, as journalctl's short format writes it
/// (`Dec 02 08:40:12`) with milliseconds: a person reading the foreground log wants the wall
/// clock, not the journal's `<N>` priority.
enum HumanLogTime {
    static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return text(seconds: spec.tv_sec, milliseconds: Int(spec.tv_nsec / 1_000_000))
    }

    /// `seconds` since the epoch in the process's time zone (TZ, /etc/localtime).
    static func text(seconds: time_t, milliseconds: Int) -> String {
        var when = seconds
        var parts = tm()
        guard localtime_r(&when, &parts) != nil else { return "@\(seconds)" }
        var buffer = [CChar](repeating: 0, count: 32)
        // strftime's %b is the C locale's month abbreviation: agentd never calls setlocale.
        let count = strftime(&buffer, buffer.count, "%b %d %H:%M:%S", &parts)
        let stamp = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let millis = String(milliseconds)
        return stamp + "." + String(repeating: "0", count: max(0, 3 - millis.count)) + millis
    }
}
