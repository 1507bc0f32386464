// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// The field lists most calendar events have in common are stored once (issue 17: memory per
/// job): 10,000 jobs with `Schedule=*-*-* 03:00:00` do not hold 10,000 lists of every month.
struct CalendarFieldSharingTests {
    private func storage(_ values: [Int]) -> UnsafeRawPointer? {
        values.withUnsafeBufferPointer { $0.baseAddress.map(UnsafeRawPointer.init) }
    }

    private func parsed(_ text: String) throws -> CalendarEvent {
        try CalendarEventParser.parse(text).get()
    }

    @Test func eventsParsedApartShareTheirCommonFieldLists() throws {
        let a = try parsed("*-*-* 03:00:00"), b = try parsed("Mon..Fri *-*-* 03:00")
        #expect(storage(a.months) == storage(b.months))
        #expect(storage(a.days) == storage(b.days))
        #expect(storage(a.hours) == storage(b.hours))
        #expect(storage(a.minutes) == storage(b.minutes))
        #expect(storage(a.microseconds) == storage(b.microseconds))
        let c = try parsed("daily"), d = try parsed("*-*-* *:00:00")
        #expect(storage(c.hours) == storage(a.microseconds), "one value, 0, is one list")
        #expect(storage(d.hours) == storage(try parsed("*-*-* *:30").hours))
    }

    @Test func aSharedListIsStillTheEventsOwnValue() throws {
        var a = try parsed("*-*-* 03:00:00")
        let b = try parsed("*-*-* 03:00:00")
        a.days.removeLast()  // a copy on write: b keeps every day
        #expect(b.days == Array(1...31))
        #expect(a.days == Array(1...30))
        #expect(try parsed("*-*-01,15 04:00").days == [1, 15])
    }
}
