// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

struct UnitFileParserTests {
    func parse(_ text: String) -> ConfigParseResult<UnitFile> {
        UnitFileParser.parse(Array(text.utf8), path: "x.conf", expectedSection: "[Job]")
    }

    func errors(_ bytes: [UInt8]) -> [String] {
        printed(UnitFileParser.parse(bytes, path: "x.conf", expectedSection: "[Job]").diagnostics)
    }

    @Test func trimsWhitespaceAroundKeysAndValues() throws {
        let file = try #require(parse("[Job]\n  Key  =  some value \t\n").value)
        #expect(file.entries(in: "Job") == [UnitFile.Entry(key: "Key", value: "some value", line: 2)])
    }

    @Test func commentsOnlyAtTheStartOfALine() throws {
        let file = try #require(parse("# c\n[Job]\n; c\n   # indented comment\nKind=refresh # x\nA=b;c\n").value)
        #expect(file.entries(in: "Job").map(\.value) == ["refresh # x", "b;c"])
        #expect(file.entries(in: "Job").map(\.line) == [5, 6])
    }

    @Test func backslashContinuesALineJoinedWithASpace() throws {
        let file = try #require(parse("[Job]\nExec=/bin/x \\\n  --flag \\\n# a comment inside\n  last\nNext=1\n").value)
        let entries = file.entries(in: "Job")
        #expect(entries[0] == UnitFile.Entry(key: "Exec", value: "/bin/x    --flag    last", line: 2))
        #expect(entries[1] == UnitFile.Entry(key: "Next", value: "1", line: 6))
    }

    @Test func anEscapedBackslashDoesNotContinue() throws {
        let file = try #require(parse("[Job]\nA=x\\\\\nB=y\n").value)
        #expect(file.entries(in: "Job").map(\.value) == ["x\\\\", "y"])
    }

    @Test func continuationAtEndOfFileEndsTheLine() throws {
        let file = try #require(parse("[Job]\nA=x \\").value)
        #expect(file.entries(in: "Job").map(\.value) == ["x"])
    }

    @Test func acceptsCRLFLineEndingsAndAByteOrderMark() throws {
        let file = try #require(UnitFileParser.parse([0xEF, 0xBB, 0xBF] + Array("[Job]\r\nA=1\r\nB=2\r\n".utf8),
                                                     path: "x", expectedSection: "[Job]").value)
        #expect(file.entries(in: "Job").map(\.value) == ["1", "2"])
        #expect(file.entries(in: "Job").map(\.line) == [2, 3])
    }

    @Test func repeatedSectionsAreReadAsOne() throws {
        let file = try #require(parse("[Job]\nA=1\n[Other]\nB=2\n[Job]\nC=3\n").value)
        #expect(file.entries(in: "Job").map(\.key) == ["A", "C"])
        #expect(file.firstLine(of: "Other") == 3)
    }

    @Test func valuesMayContainEqualsSignsAndBeEmpty() throws {
        let file = try #require(parse("[Job]\nEnvironment=A=B=C\nEmpty=\n").value)
        #expect(file.entries(in: "Job").map(\.value) == ["A=B=C", ""])
    }

    @Test func anEmptyFileHasNoSections() throws {
        #expect(try #require(parse("").value).sections.isEmpty)
        #expect(try #require(parse("\n\n# only comments\n").value).sections.isEmpty)
    }

    @Test func pinsTheSyntaxErrorMessages() {
        #expect(errors(Array("[Job\nA=1\n".utf8))
            == ["x.conf:1: section header \"[Job\" has no closing \"]\"; write [Job]"])
        #expect(errors(Array("[Job] x\nA=1\n".utf8))
            == ["x.conf:1: section header \"[Job] x\" has text after \"]\"; write [Job] alone on its line"])
        #expect(errors(Array("A=1\n".utf8))
            == ["x.conf:1: A= comes before any section; put [Job] above it"])
        #expect(errors(Array("[Job]\njust words\n".utf8))
            == ["x.conf:2: \"just words\" is not a Key=Value assignment, a [Section] header or a comment "
                + "(comments start with # or ; at the beginning of a line)"])
        #expect(errors(Array("[Job]\n=value\n".utf8))
            == ["x.conf:2: \"=value\" has no key before \"=\"; write Key=Value"])
        #expect(errors(Array("[Job]\nA=1\0\n".utf8))
            == ["x.conf:2: contains a NUL byte at column 4; config files must be UTF-8 text"])
        #expect(errors(Array("[Job]\nA=".utf8) + [0xC3, 0x28])
            == ["x.conf:2: is not valid UTF-8 (byte 0xC3 at column 3); section, key and value lines must be UTF-8 text"])
        #expect(errors(Array("[]\n".utf8)) == ["x.conf:1: empty section header []; write [Job]"])
    }

    /// DESIGN §3: comment lines may hold any bytes, as in systemd (a Latin-1 name, a stray 0xFF).
    @Test func commentLinesMayHoldBytesThatAreNotUTF8() {
        let latin1: [UInt8] = Array("[Job]\n# by Jos".utf8) + [0xE9] + Array("\n; caf".utf8) + [0xE9, 0xFF]
            + Array("\nA=1\n".utf8)
        #expect(errors(latin1) == [])
    }

    @Test func collectsSeveralErrorsButStopsAtEncodingErrors() {
        #expect(errors(Array("a\nb\nc\n".utf8)).count == 3)
        #expect(errors(Array("a\n\0\nc\n".utf8)).count == 2)
        let many = String(repeating: "junk\n", count: 100)
        #expect(errors(Array(many.utf8)).count == UnitFileParser.maximumErrors + 1)
    }

    @Test func refusesLinesOver1MiB() {
        let long = "[Job]\nA=" + String(repeating: "x", count: UnitFileParser.maximumLineLength) + "\n"
        #expect(errors(Array(long.utf8))
            == ["x.conf:2: line is 1048578 bytes long; at most 1 MiB (1048576 bytes) is allowed"])
        let justFits = "[Job]\n" + "A=" + String(repeating: "x", count: UnitFileParser.maximumLineLength - 2)
        #expect(errors(Array(justFits.utf8)).isEmpty)
    }

    @Test func refusesContinuedLinesOver1MiB() {
        let half = String(repeating: "y", count: UnitFileParser.maximumLineLength / 2 + 10)
        let text = "[Job]\nA=\(half)\\\n\(half)\\\nend\n"
        #expect(errors(Array(text.utf8))
            == ["x.conf:2: continued line is longer than 1 MiB (1048576 bytes)"])
    }
}
