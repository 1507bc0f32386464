// SPDX-License-Identifier: Apache-2.0
@testable import AgentCore

/// A zone with one transition: `before` seconds east of UTC until `at`, `after` from then on.
struct OneTransitionRule: UTCOffsetRule {
    var at: Int64
    var before: Int
    var after: Int

    func utcOffset(at unixSeconds: Int64) -> Int { unixSeconds < at ? before : after }
}

/// Europe/Berlin's spring forward in 2027: Sunday 28 March, 02:00 CET (01:00 UTC) becomes 03:00 CEST.
let berlinSpring2027 = OneTransitionRule(at: utcSeconds(2027, 3, 28, 1, 0), before: 3600, after: 7200)
/// Europe/Berlin's fall back in 2026: Sunday 25 October, 03:00 CEST (01:00 UTC) becomes 02:00 CET.
let berlinFall2026 = OneTransitionRule(at: utcSeconds(2026, 10, 25, 1, 0), before: 7200, after: 3600)

func utcSeconds(_ year: Int64, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int = 0) -> Int64 {
    CivilDateTime.days(year: year, month: month, day: day) * 86_400
        + Int64(hour * 3600 + minute * 60 + second)
}

/// The instant a local wall-clock time names under `rule`.
func localTime(_ year: Int64, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int = 0,
               _ rule: some UTCOffsetRule = FixedUTCOffset.utc) -> SchedulerTime
{
    SchedulerTime(seconds: Double(LocalTime.instant(ofLocal: utcSeconds(year, month, day, hour, minute, second), rule)))
}

/// `Sun 2026-11-29 03:10:00 +01:00`: an instant as local time under `rule`, with its offset.
func show(_ time: SchedulerTime, _ rule: some UTCOffsetRule = FixedUTCOffset.utc) -> String {
    let seconds = Int64(time.seconds.rounded(.down))
    let offset = rule.utcOffset(at: seconds)
    let local = seconds + Int64(offset)
    let civil = CivilDateTime(localSeconds: local)
    let day = CivilDateTime.weekday(ofDay: CivilDateTime.floorDivide(local, 86_400))
    func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    let sign = offset < 0 ? "-" : "+"
    return "\(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][day]) \(civil.year)-\(pad(civil.month))-\(pad(civil.day)) "
        + "\(pad(civil.hour)):\(pad(civil.minute)):\(pad(civil.second)) \(sign)\(pad(abs(offset) / 3600)):\(pad(abs(offset) / 60 % 60))"
}

/// The next `count` matches of `text` after `start`, each shown as local time.
func nextMatches(_ text: String, after start: SchedulerTime, count: Int = 3,
                 _ rule: some UTCOffsetRule = FixedUTCOffset.utc) throws -> [String]
{
    let event = try CalendarEventParser.parse(text).get()
    var matches: [String] = []
    var time = start
    for _ in 0..<count {
        guard let next = event.nextMatch(after: time, rule: rule) else { break }
        matches.append(show(next, rule))
        time = next
    }
    return matches
}
