// SPDX-License-Identifier: Apache-2.0
import AgentTestSupport
import Foundation
import Testing

/// The daemon scripts under `testdata/` (docs/testing.md): the shell on a virtual loop with
/// virtual processes, store and syncs; each file is a story of control requests, plugin output,
/// exits, timers and failures, with the system calls and answers the shell must produce. The
/// shell's rules are checked after every command. `UPDATE_GOLDEN=1 swift test --filter
/// DaemonScript` rewrites the expected output (review the diff before committing it).
@Suite struct DaemonScriptTests {
    static let directory: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("testdata").path
    }()

    static var updating: Bool { ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" }

    static let scripts: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".txt") }.sorted()
    }()

    @Test func thereAreAtLeastThirtyDaemonScripts() {
        #expect(Self.scripts.count >= 30, "found \(Self.scripts.count) scripts in \(Self.directory)")
    }

    @Test(arguments: DaemonScriptTests.scripts)
    func daemonScript(_ name: String) throws {
        let path = Self.directory + "/" + name
        let file = ScriptFile(parsing: try String(contentsOfFile: path, encoding: .utf8))
        let harness = DaemonHarness()
        var outputs: [Int: [String]] = [:]
        var reported = 0
        for script in file.cases {
            let location = SourceLocation(fileID: "AgentDaemonTests/\(name)", filePath: path, line: script.line, column: 1)
            var actual: [String]
            do {
                actual = try harness.run(script.command, input: script.input)
            } catch {
                actual = ["error: \(error)"]
                Issue.record("\(name):\(script.line): \(script.command): \(error)", sourceLocation: location)
            }
            outputs[script.line] = actual
            for violation in harness.violations.prefix(10) {
                Issue.record("\(name):\(script.line): \(script.command): \(violation)", sourceLocation: location)
            }
            harness.violations = []
            if !Self.updating, actual != script.expected, reported < 3 {
                reported += 1
                Issue.record("""
                    \(name):\(script.line): the output of `\(script.command)` differs from the file \
                    (UPDATE_GOLDEN=1 swift test --filter DaemonScript rewrites it if the change is intended):
                    \(ScriptFile.difference(expected: script.expected, actual: actual))
                    """, sourceLocation: location)
            }
        }
        if Self.updating {
            try file.rendered(with: outputs).write(toFile: path, atomically: true, encoding: .utf8)
        }
    }
}
