// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

@Test(arguments: [
    (UInt64(0), "r000000"), (1, "r000001"), (42, "r000042"), (999_999, "r999999"),
    (1_000_000, "r1000000"), (1_234_567, "r1234567"), (UInt64.max, "r18446744073709551615"),
])
func runIDsAreZeroPaddedAndParseBack(_ number: UInt64, _ text: String) throws {
    #expect(RunID(number).description == text)
    #expect(RunID(parsing: text) == RunID(number))
    #expect(try encodedText(RunID(number)) == text)
    #expect(try decoded(RunID.self, from: text) == RunID(number))
}

@Test(arguments: [
    "", "r", "r42", "r00042", "R000042", "r0000042", "r+00042", "r-00042", "r00004a",
    " r000042", "r000042 ", "000042", "r18446744073709551616", "r99999999999999999999999",
    "r０００００１",
])
func nonCanonicalRunIDsAreRejected(_ text: String) {
    #expect(RunID(parsing: text) == nil)
}

@Test func runIDsSortByNumber() {
    let ids = [RunID(1_000_000), RunID(7), RunID(999_999)]
    #expect(ids.sorted() == [RunID(7), RunID(999_999), RunID(1_000_000)])
}

@Test func decodingAMalformedRunIDThrows() {
    #expect(throws: DecodingError.self) {
        _ = try decoded(RunID.self, from: "r42")
    }
}
