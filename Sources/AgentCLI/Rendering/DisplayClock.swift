// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Where "now" and "local time" come from when agentctl prints times: the system clock and time
/// zone, or fixed values so that tests print the same thing on every machine.
public struct DisplayClock: Sendable {
    /// How Unix time becomes a local date and time of day.
    public enum Zone: Sendable, Equatable {
        /// The system's zone (`TZ`, `/etc/localtime`), through `localtime_r`.
        case system
        /// A fixed offset east of UTC, in seconds (`3600` is UTC+01:00), without daylight saving.
        case fixedOffset(seconds: Int)
    }

    /// Milliseconds since the Unix epoch, read each time it is called (watch reads it per frame).
    public var now: @Sendable () -> Int64
    public var zone: Zone

    public init(zone: Zone, now: @escaping @Sendable () -> Int64) {
        self.zone = zone
        self.now = now
    }

    /// The real clock in the system's zone.
    public static let system = DisplayClock(zone: .system) {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// A clock stopped at `milliseconds`, in `zone`.
    public static func fixed(milliseconds: Int64, zone: Zone = .fixedOffset(seconds: 0)) -> DisplayClock {
        DisplayClock(zone: zone) { milliseconds }
    }

    /// Seconds since the epoch, now.
    public var nowSeconds: Int64 { Self.floorDivide(now(), 1000) }

    /// The broken-down local time of `seconds` since the epoch.
    func local(_ seconds: Int64) -> tm {
        var result = tm()
        switch zone {
        case .system:
            var time = time_t(seconds)
            _ = localtime_r(&time, &result)
        case .fixedOffset(let offset):
            var time = time_t(seconds + Int64(offset))
            _ = gmtime_r(&time, &result)
        }
        return result
    }

    /// `strftime` of the local time of `seconds` (C locale: English day names).
    func format(_ seconds: Int64, _ pattern: String) -> String {
        var broken = local(seconds)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, pattern, &broken)
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Days since 1970-01-01 of the local date of `seconds`: to tell today from yesterday.
    func localDay(_ seconds: Int64) -> Int64 {
        let broken = local(seconds)
        return Self.daysFromCivil(year: Int64(broken.tm_year) + 1900, month: Int64(broken.tm_mon) + 1,
                                  day: Int64(broken.tm_mday))
    }

    /// Howard Hinnant's days_from_civil: proleptic Gregorian date to days since the epoch.
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }
}
