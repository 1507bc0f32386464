// SPDX-License-Identifier: Apache-2.0
/// One cron schedule line (`m h dom mon dow [user] command`, or `@daily [user] command`) read
/// for conversion, crontab(5) syntax.
public struct CronLine: Sendable, Hashable {
    public var schedule: String
    public var user: String?
    public var command: String
    /// Day of month and weekday both restricted (neither starts with `*`): cron runs when
    /// *either* matches.
    public var eitherDay: Bool
    /// `@reboot`: once after boot (`AfterBoot=`), no schedule.
    public var atBoot: Bool = false

    /// Reads a line; nil for blanks, comments and `NAME=value` environment lines. `withUser`:
    /// system crontabs (`/etc/crontab`, `/etc/cron.d/*`) name the user after the time fields.
    public static func parse(_ line: String, withUser: Bool) -> Result<CronLine, CronError>? {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        if trimmed.isEmpty || trimmed.hasPrefix("#") || environment(String(trimmed)) != nil { return nil }
        var fields = trimmed.split(maxSplits: withUser ? 6 : 5, omittingEmptySubsequences: true) {
            $0 == " " || $0 == "\t"
        }.map(String.init)
        if let first = fields.first, first.hasPrefix("@") {
            fields = trimmed.split(maxSplits: withUser ? 2 : 1, omittingEmptySubsequences: true) {
                $0 == " " || $0 == "\t"
            }.map(String.init)
            let count = withUser ? 3 : 2
            guard fields.count == count else { return .failure(.fieldCount(line)) }
            let command = fields[count - 1]
            let user = withUser ? fields[1] : nil
            if first == "@reboot" {
                return .success(CronLine(schedule: "", user: user, command: command, eitherDay: false, atBoot: true))
            }
            guard let schedule = nickname(first) else { return .failure(.badField(first, "is not a cron nickname (@reboot, @hourly, @daily, @weekly, @monthly, @yearly)")) }
            return .success(CronLine(schedule: schedule, user: user, command: command, eitherDay: false))
        }
        let count = withUser ? 7 : 6
        guard fields.count == count else { return .failure(.fieldCount(line)) }
        do {
            let minute = try CronField.parse(fields[0], range: 0...59, names: [])
            let hour = try CronField.parse(fields[1], range: 0...23, names: [])
            let day = try CronField.parse(fields[2], range: 1...31, names: [])
            let month = try CronField.parse(fields[3], range: 1...12, names: CronField.months)
            let weekday = try CronField.parse(fields[4], range: 0...7, names: CronField.weekdays)
            let schedule = CronField.calendarEvent(minute: minute, hour: hour, day: day, month: month, weekday: weekday)
            return .success(CronLine(schedule: schedule, user: withUser ? fields[5] : nil,
                                     command: fields[count - 1],
                                     eitherDay: !day.startsWithStar && !weekday.startsWithStar))
        } catch {
            return .failure(error)
        }
    }

    /// `NAME=value` (cron's environment lines), or nil.
    public static func environment(_ line: String) -> (name: String, value: String)? {
        guard let equals = line.firstIndex(of: "=") else { return nil }
        let name = line[..<equals].trimmingSpaces
        guard !name.isEmpty, name.utf8.allSatisfy({ TextBytes.isDigit($0) || $0 == 0x5F || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) }),
              let first = name.utf8.first, !TextBytes.isDigit(first) else { return nil }
        var value = line[line.index(after: equals)...].trimmingSpaces
        if value.count >= 2, let q = value.first, q == "\"" || q == "'", value.last == q {
            value = String(value.dropFirst().dropLast())
        }
        return (name, value)
    }

    /// cron's nicknames as calendar events: written out, since systemd's `weekly` is Monday
    /// and cron's `@weekly` Sunday.
    static func nickname(_ word: String) -> String? {
        switch word {
        case "@yearly", "@annually": "*-01-01 00:00:00"
        case "@monthly": "*-*-01 00:00:00"
        case "@weekly": "Sun *-*-* 00:00:00"
        case "@daily", "@midnight": "*-*-* 00:00:00"
        case "@hourly": "*-*-* *:00:00"
        default: nil
        }
    }
}

/// Why a cron line could not be read.
public enum CronError: Error, Hashable, Sendable, CustomStringConvertible {
    case fieldCount(String)
    case badField(String, String)

    public var description: String {
        switch self {
        case .fieldCount(let line):
            "\"\(line.prefix(80))\" is not a cron line (minute hour day-of-month month weekday [user] command)"
        case .badField(let field, let why):
            "cron field \"\(field.prefix(40))\": \(why)"
        }
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
