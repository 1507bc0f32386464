// SPDX-License-Identifier: Apache-2.0
import AgentTestSupport
import Foundation
import Testing
@testable import AgentCore

/// The golden scheduler scripts under `Golden/testdata/` (issue 11 item 7, docs/testing.md):
/// each file is a sequence of commands and the output the scheduler must produce, checked
/// case by case; the scheduler's invariants and the stated rules are checked after every
/// event. `UPDATE_GOLDEN=1 swift test --filter GoldenScript` rewrites the expected output
/// (review the diff with git before committing it).
@Suite struct GoldenScriptTests {
    static let directory: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("testdata").path
    }()

    static var updating: Bool { ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" }

    static let scripts: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".txt") }.sorted()
    }()

    @Test func thereAreAtLeastThirtyScripts() {
        #expect(Self.scripts.count >= 30, "found \(Self.scripts.count) scripts in \(Self.directory)")
    }

    @Test(arguments: GoldenScriptTests.scripts)
    func script(_ name: String) throws {
        let path = Self.directory + "/" + name
        let file = ScriptFile(parsing: try String(contentsOfFile: path, encoding: .utf8))
        var interpreter = ScriptInterpreter()
        var outputs: [Int: [String]] = [:]
        var reported = 0
        for script in file.cases {
            let location = SourceLocation(fileID: "AgentCoreTests/\(name)", filePath: path, line: script.line, column: 1)
            var actual: [String]
            do {
                actual = try interpreter.run(script.command, input: script.input)
            } catch {
                actual = ["error: \(error)"]
                Issue.record("\(name):\(script.line): \(script.command): \(error)", sourceLocation: location)
            }
            outputs[script.line] = actual
            for violation in interpreter.shell.violations.prefix(10) {
                Issue.record("\(name):\(script.line): \(script.command): \(violation)", sourceLocation: location)
            }
            interpreter.shell.violations = []
            if !Self.updating, actual != script.expected, reported < 3 {
                reported += 1
                Issue.record("""
                    \(name):\(script.line): the output of `\(script.command)` differs from the file \
                    (UPDATE_GOLDEN=1 swift test --filter GoldenScript rewrites it if the change is intended):
                    \(ScriptFile.difference(expected: script.expected, actual: actual))
                    """, sourceLocation: location)
            }
        }
        if Self.updating {
            try file.rendered(with: outputs).write(toFile: path, atomically: true, encoding: .utf8)
        }
    }

    /// The file format round-trips: rendering with the expected outputs gives the file back.
    @Test func aScriptFileRendersBackToItself() {
        let text = "# comment\n\njobs\ncom.example.a Interval=1h\n----\nline one\nline two\n\npending\n----\n"
        #expect(ScriptFile(parsing: text).rendered(with: [:]) == text)
        let cases = ScriptFile(parsing: text).cases
        #expect(cases.map(\.line) == [3, 9])
        #expect(cases.first?.input == ["com.example.a Interval=1h"])
        #expect(cases.first?.expected == ["line one", "line two"])
    }

    @Test func aMismatchShowsExpectedLinesWithMinusAndActualLinesWithPlus() {
        #expect(ScriptFile.difference(expected: ["a", "b", "d"], actual: ["a", "c", "d"]) == "  a\n- b\n+ c\n  d")
    }
}
