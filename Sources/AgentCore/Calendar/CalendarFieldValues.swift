// SPDX-License-Identifier: Apache-2.0
/// The value lists of calendar fields most events share — every month, every day, every hour or
/// minute, one value — held once: 10,000 jobs with `Schedule=*-*-* 03:00:00` had 10,000 copies
/// of 1...12 and 1...31 (~1 KB a job: 29.3 MB resident against 18.7 MB for jobs without a
/// schedule). Arrays are values, so a shared one is never changed through another event.
enum CalendarFieldValues {
    private static let everyMonth = Array(1...12)
    private static let everyDay = Array(1...31)
    private static let everyHour = Array(0...23)
    private static let everyMinute = Array(0...59)
    /// [0], [1], … [59]: the one hour, minute or second of most events, and one day or month.
    private static let single: [[Int]] = (0...59).map { [$0] }

    /// `values` itself, or an equal list every event can share.
    static func shared(_ values: [Int]) -> [Int] {
        if values.count == 1, let value = values.first, single.indices.contains(value) { return single[value] }
        for common in [everyMonth, everyDay, everyHour, everyMinute] where common == values { return common }
        return values
    }
}

extension CalendarEvent {
    /// The same event with its field lists from ``CalendarFieldValues`` where they are common.
    func sharingFieldStorage() -> CalendarEvent {
        var event = self
        event.months = CalendarFieldValues.shared(months)
        event.days = CalendarFieldValues.shared(days)
        event.hours = CalendarFieldValues.shared(hours)
        event.minutes = CalendarFieldValues.shared(minutes)
        event.microseconds = CalendarFieldValues.shared(microseconds)
        return event
    }
}
