// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

private func parse(_ text: String) -> PluginDirective {
    PluginDirective.parse(Array(text.utf8))
}

private func progress(_ completed: Int64, _ total: Int64, countsUnits: Bool = true) -> PluginDirective {
    guard let value = Progress(completed: completed, total: total, countsUnits: countsUnits) else {
        Issue.record("bad fixture \(completed)/\(total)")
        return .invalid(.progressMalformed)
    }
    return .progress(value)
}

@Test(arguments: [
    ("PROGRESS=42/100", progress(42, 100)),
    ("PROGRESS=0/1", progress(0, 1)),
    ("PROGRESS=7/7", progress(7, 7)),
    ("PROGRESS=42%", progress(42, 100, countsUnits: false)),
    ("PROGRESS=0%", progress(0, 100, countsUnits: false)),
    ("PROGRESS=100%", progress(100, 100, countsUnits: false)),
    ("PROGRESS=007/010", progress(7, 10)),
    ("PROGRESS= 3/4\t", progress(3, 4)),
    ("PROGRESS=9223372036854775807/9223372036854775807",
     progress(Int64.max, Int64.max)),
    ("PROGRESS=42/100\r", progress(42, 100)),
])
func validProgressFormsParse(_ line: String, _ expected: PluginDirective) {
    #expect(parse(line) == expected)
}

@Test(arguments: [
    ("PROGRESS=7/3", InvalidDirective.progressOutOfRange),
    ("PROGRESS=1/0", .progressOutOfRange),
    ("PROGRESS=0/0", .progressOutOfRange),
    ("PROGRESS=-1/5", .progressOutOfRange),
    ("PROGRESS=5/-1", .progressOutOfRange),
    ("PROGRESS=150%", .progressOutOfRange),
    ("PROGRESS=101%", .progressOutOfRange),
    ("PROGRESS=-5%", .progressOutOfRange),
    ("PROGRESS=9223372036854775808/9223372036854775809", .progressOutOfRange),
    ("PROGRESS=1/99999999999999999999999", .progressOutOfRange),
    ("PROGRESS=99999999999999999999%", .progressOutOfRange),
    ("PROGRESS=abc", .progressMalformed),
    ("PROGRESS=5/", .progressMalformed),
    ("PROGRESS=/5", .progressMalformed),
    ("PROGRESS=/", .progressMalformed),
    ("PROGRESS=", .progressMalformed),
    ("PROGRESS=   ", .progressMalformed),
    ("PROGRESS=%", .progressMalformed),
    ("PROGRESS=4.5%", .progressMalformed),
    ("PROGRESS=42%%", .progressMalformed),
    ("PROGRESS=1/2/3", .progressMalformed),
    ("PROGRESS=1 /2", .progressMalformed),
    ("PROGRESS=+1/2", .progressMalformed),
    ("PROGRESS=-/2", .progressMalformed),
    ("PROGRESS=0x10/100", .progressMalformed),
    ("PROGRESS=42/100%", .progressMalformed),
    ("PROGRESS=abc/99999999999999999999", .progressMalformed),
])
func invalidProgressIsReportedWithItsReason(_ line: String, _ reason: InvalidDirective) {
    #expect(parse(line) == .invalid(reason))
}

@Test func progressFractionIsCompletedOverTotal() throws {
    let half = try #require(Progress(completed: 21, total: 42))
    #expect(half.fraction == 0.5)
    #expect(try #require(Progress(completed: 0, total: 9)).fraction == 0)
    #expect(try #require(Progress(completed: 9, total: 9)).fraction == 1)
}

@Test(arguments: [(Int64(-1), Int64(5)), (6, 5), (0, 0), (1, 0), (0, -1)])
func progressRefusesPairsOutOfRange(_ completed: Int64, _ total: Int64) {
    #expect(Progress(completed: completed, total: total) == nil)
}

@Test(arguments: [
    ("TITLE=Exporting Photos", PluginDirective.title("Exporting Photos")),
    ("TITLE=", .title("")),
    ("SUBTITLE=42 of 100 complete", .subtitle("42 of 100 complete")),
    ("STATUS=free text = with equals", .status("free text = with equals")),
    ("CHECKPOINT=batch-17", .checkpoint("batch-17")),
    ("CHECKPOINT=", .checkpoint("")),
    ("TITLE=  spaced  ", .title("  spaced  ")),
])
func textDirectivesCarryTheirValueVerbatim(_ line: String, _ expected: PluginDirective) {
    #expect(parse(line) == expected)
}

@Test(arguments: [
    "progress=42/100",  // keys are case-sensitive
    "Title=x",
    " PROGRESS=42/100",  // and must start the line
    "PROGRESS 42/100",
    "PROGRESS",
    "PROGRESSION=1/2",
    "TITLEX=x",
    "STATUS",
    "SUB=x",
    "CHECKPOINT",
    "hello world",
    "P",
    "=",
])
func anyOtherLineIsALogLine(_ line: String) {
    #expect(parse(line) == .log(line))
}

@Test func emptyLineIsAnEmptyLogLine() {
    #expect(PluginDirective.parse([]) == .log(""))
    #expect(PluginDirective.parse([0x0D]) == .log(""))
}

@Test(arguments: [
    ("TITLE=Export\r", PluginDirective.title("Export")),
    ("STATUS=ok\r", .status("ok")),
    ("CHECKPOINT=b7\r", .checkpoint("b7")),
    ("plain log\r", .log("plain log")),
    // Only the one carriage return of a CRLF ending is stripped.
    ("TITLE=x\r\r", .title("x\r")),
    ("TITLE=a\rb", .title("a\rb")),
])
func aTrailingCarriageReturnIsStripped(_ line: String, _ expected: PluginDirective) {
    #expect(parse(line) == expected)
}

@Test func invalidUTF8InTitleIsReplacedNotFatal() {
    let line: [UInt8] = Array("TITLE=caf".utf8) + [0xC3] + Array(" ok".utf8) + [0xFF, 0xFE]
    #expect(PluginDirective.parse(line) == .title("caf\u{FFFD} ok\u{FFFD}\u{FFFD}"))
}

/// A NUL byte in free text (STATUS=, TITLE=, SUBTITLE=) is kept as U+FFFD: no display, log or
/// C string holds one.
@Test func aNULByteInStatusOrTitleBecomesTheReplacementCharacter() {
    #expect(PluginDirective.parse(Array("STATUS=with".utf8) + [0] + Array("nul".utf8)) == .status("with\u{FFFD}nul"))
    #expect(PluginDirective.parse(Array("TITLE=a".utf8) + [0]) == .title("a\u{FFFD}"))
    #expect(PluginDirective.parse(Array("SUBTITLE=".utf8) + [0, 0x41]) == .subtitle("\u{FFFD}A"))
}

@Test func invalidUTF8InALogLineIsReplaced() {
    let line: [UInt8] = [0x80, 0x41, 0xED, 0xA0, 0x80]  // stray continuation, a surrogate
    guard case .log(let text) = PluginDirective.parse(line) else {
        Issue.record("expected a log line")
        return
    }
    #expect(text.unicodeScalars.first == "\u{FFFD}")
    #expect(text.contains("A"))
}

@Test(arguments: [
    (1023, true), (1024, true), (1025, false), (4000, false),
])
func checkpointIsLimitedTo1024Bytes(_ length: Int, _ accepted: Bool) {
    let value = String(repeating: "x", count: length)
    let result = parse("CHECKPOINT=" + value)
    #expect(result == (accepted ? .checkpoint(value) : .invalid(.checkpointTooLong)))
}

@Test func checkpointLimitCountsBytesNotCharacters() {
    // 512 two-byte characters are 1024 bytes; one more ASCII byte is over.
    let exact = String(repeating: "é", count: 512)
    #expect(parse("CHECKPOINT=" + exact) == .checkpoint(exact))
    #expect(parse("CHECKPOINT=" + exact + "x") == .invalid(.checkpointTooLong))
}

@Test func checkpointLimitAppliesToTheRepairedText() {
    // 1020 valid bytes plus two invalid ones: 1022 raw bytes, but 1026 once each bad byte
    // becomes a 3-byte U+FFFD, which is what would be persisted.
    let line = Array("CHECKPOINT=".utf8) + Array(repeating: UInt8(ascii: "a"), count: 1020)
        + [0xFF, 0xFF]
    #expect(PluginDirective.parse(line) == .invalid(.checkpointTooLong))
}

@Test func checkpointWithANulByteIsRefused() {
    let line = Array("CHECKPOINT=a".utf8) + [0] + Array("b".utf8)
    #expect(PluginDirective.parse(line) == .invalid(.checkpointContainsNUL))
}

@Test func aCRLFCheckpointOf1024BytesIsAccepted() {
    let value = String(repeating: "y", count: 1024)
    #expect(parse("CHECKPOINT=" + value + "\r") == .checkpoint(value))
}

@Test func parsingABorrowedBufferMatchesParsingAnArray() {
    let bytes = Array("PROGRESS=5/10".utf8)
    let borrowed = bytes.withUnsafeBufferPointer { PluginDirective.parse($0) }
    #expect(borrowed == PluginDirective.parse(bytes))
}

@Test func invalidDirectivesDescribeThemselves() {
    #expect(InvalidDirective.checkpointTooLong.description.contains("1024"))
    #expect(InvalidDirective.progressMalformed.description.hasPrefix("PROGRESS="))
}

@Test func unitsAreKeptForNOverMAndAPercentageKeepsTheFractionOnly() throws {
    guard case .progress(let units) = parse("PROGRESS=4/10"), case .progress(let percent) = parse("PROGRESS=40%") else {
        Issue.record("both lines are progress")
        return
    }
    #expect(units.completedUnitCount == 4 && units.totalUnitCount == 10)
    #expect(units.fraction == 0.4)
    #expect(percent.completedUnitCount == nil && percent.totalUnitCount == nil)
    #expect(percent.fraction == 0.4)
}
