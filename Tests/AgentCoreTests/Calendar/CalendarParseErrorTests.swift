// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// `Schedule=` values that are not calendar events: the message names the part that is wrong
/// and the valid forms.
struct CalendarParseErrorTests {
    func message(_ text: String) -> String? {
        if case .failure(let error) = CalendarEventParser.parse(text) { return error.message }
        return nil
    }

    let forms = "valid forms: daily, Mon..Fri 09:00, *-*-01 04:00, *-*-* 00/6:00, *-02~01, 12:00 Europe/Berlin (systemd.time(7))"

    @Test func aMisspeltMinuteIsNamed() {
        #expect(message("Sun 3:1o") == "\"Sun 3:1o\" is not a calendar event: minute \"1o\" is not a number, a range A..B or a step N/STEP; \(forms)")
    }

    @Test func eachPartSaysWhatIsWrong() {
        let cases: [(String, String)] = [
            ("Mnn 09:00", "weekday \"Mnn\" is not a weekday (Mon Tue Wed Thu Fri Sat Sun)"),
            ("25:00", "hour \"25\" is out of range (0..23)"),
            ("*-13-01", "month \"13\" is out of range (1..12)"),
            ("*-02-30 04:00", "the date never occurs: none of its days exist in its months"),
            ("9..5:00", "hour range \"9..5\" runs backwards; write the smaller first"),
            ("Sat..Mon 09:00", "weekday range \"Sat..Mon\" runs backwards or wraps the week; list the days instead (Sat,Sun,Mon)"),
            ("Mon.. 09:00", "weekday range \"Mon..\" has no end"),
            ("*-*-31/2", "day \"31/2\" is out of range (1..31) or its step never repeats"),
            ("*/2 09:00", "date \"*/…\": systemd.time(7) has no */STEP; write START/STEP (0/2, 1/2)"),
            ("*:0/0", "minute step must not be 0"),
                        ("09:00 Nowhere/Zone", "time zone \"Nowhere/Zone\" is not known (no zone file of that name; write UTC or a name as in /usr/share/zoneinfo, Europe/Berlin)"),
            ("daily at3", "after \"daily\" only a time may follow (daily 03:00)"),
            ("hourly 03:00", "\"hourly\" stands alone (write *-*-* *:15 for a minute of each hour)"),
            ("1-2-3-4", "date has more than three parts; write YEAR-MONTH-DAY (*-*-01)"),
            ("09", "\"09\" is not a weekday, a date (*-*-01) or a time (04:00)"),
            ("*-*-1,,2", "day has an empty list item"),
        ]
        for (text, detail) in cases {
            #expect(message(text) == "\(TextBytes.quoted(text)) is not a calendar event: \(detail); \(forms)")
        }
    }

    @Test func theFormsAdminsUseParse() {
        for text in ["minutely", "hourly", "daily", "weekly", "monthly", "yearly", "annually", "quarterly",
                     "semiannually", "Daily", "Mon..Fri 09:00", "Sun 03:10", "*-*-01 04:00", "*-*-* 00/6:00",
                     "Mon,Wed 12:00", "*-*-1,15 06:00", "9..17:00", "03:10:30", "daily 03:00",
                     "Sat,Sun *-*-* 10:00:00", "2027-01-01", "09:00:00.5", "Wed, 17:48", "*-02~01",
                     "semi-annually", "12:00 UTC", "@1700000000", "*-*-1..1"] {
            #expect(message(text) == nil, "\(text)")
        }
    }
}
