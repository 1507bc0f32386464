// SPDX-License-Identifier: Apache-2.0
/// A local date and time of day as a calendar shows it, without a zone: what `Schedule=` and
/// `Window=` are written in. Conversions use day numbers (days since 1970-01-01) so that the
/// calendar arithmetic is exact integer work. Its day-number functions are the one copy of the
/// proleptic Gregorian arithmetic (RFC 3339 text and agentctl's dates use them too).
public struct CivilDateTime: Sendable, Hashable {
    var year: Int64
    var month: Int  // 1...12
    var day: Int  // 1...31
    var hour: Int
    var minute: Int
    var second: Int

    static let secondsPerDay: Int64 = 86_400

    /// The civil date and time of `localSeconds` (seconds since 1970-01-01 00:00 local).
    init(localSeconds: Int64) {
        let days = Self.floorDivide(localSeconds, Self.secondsPerDay)
        let secondOfDay = Int(localSeconds - days * Self.secondsPerDay)
        let date = Self.civil(fromDays: days)
        year = date.year
        month = date.month
        day = date.day
        hour = secondOfDay / 3600
        minute = secondOfDay / 60 % 60
        second = secondOfDay % 60
    }

    /// Howard Hinnant's `civil_from_days`: the proleptic Gregorian date of a day number.
    public static func civil(fromDays days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), Int(month), Int(day))
    }

    /// Howard Hinnant's `days_from_civil`: the day number of a proleptic Gregorian date.
    public static func days(year: Int64, month: Int, day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// 0 = Monday … 6 = Sunday (1970-01-01 was a Thursday).
    public static func weekday(ofDay days: Int64) -> Int {
        Int(floorModulo(days + 3, 7))
    }

    public static func isLeap(_ year: Int64) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    public static func daysIn(month: Int, year: Int64) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    public static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    public static func floorModulo(_ a: Int64, _ b: Int64) -> Int64 {
        a - floorDivide(a, b) * b
    }
}
