// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Golden files for output of the real binaries, under Tests/Golden/integration/. Volatile values
/// (pids, times, durations, the sandbox path) are normalised before comparing;
/// `UPDATE_GOLDEN=1 swift test` rewrites the files instead (review the diff with git).
enum OutputGoldens {
    static let directory: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Golden").appendingPathComponent("integration").path
    }()

    static func expect(_ actual: String, matches name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let path = directory + "/" + name
        let text = actual.hasSuffix("\n") ? actual : actual + "\n"
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            do {
                try text.write(toFile: path, atomically: true, encoding: .utf8)
            } catch {
                Issue.record("cannot write golden file \(path): \(error)", sourceLocation: sourceLocation)
            }
            return
        }
        guard let expected = try? String(contentsOfFile: path, encoding: .utf8) else {
            Issue.record("no golden file integration/\(name); create it with UPDATE_GOLDEN=1 swift test and review it",
                         sourceLocation: sourceLocation)
            return
        }
        if expected != text {
            let a = expected.components(separatedBy: "\n"), b = text.components(separatedBy: "\n")
            let first = Array(zip(a, b)).firstIndex { $0 != $1 } ?? min(a.count, b.count)
            func line(_ lines: [String]) -> String { first < lines.count ? lines[first] : "(end)" }
            Issue.record("output differs from Tests/Golden/integration/\(name) at line \(first + 1) (UPDATE_GOLDEN=1 swift test rewrites it if intended):\n- \(line(a))\n+ \(line(b))\nwhole output:\n\(text)",
                         sourceLocation: sourceLocation)
        }
    }

    /// `--json` output with volatile values replaced: pids by `<pid>`, instants (RFC 3339 text,
    /// docs/json.md) by `<time>`, uptime by `<seconds>`, the sandbox path by `<sandbox>`; keys
    /// sorted, so only shape and stable values remain. An instant not in the documented form
    /// stays as it is, and so fails the comparison.
    static func normalisedJSON(_ text: String, sandbox: Sandbox) throws -> String {
        let placeholders = ["pid": "<pid>", "uptimeSeconds": "<seconds>"]
        let instants: Set = ["startedAt", "endedAt", "deadline", "earliestBegin", "time", "refillsAt"]
        func walk(_ value: Any, key: String?) -> Any {
            if let key, let placeholder = placeholders[key], value is NSNumber { return placeholder }
            if let key, instants.contains(key), JSONInstant.milliseconds(value) != nil { return "<time>" }
            // Power, thermal, network and sources are this machine's: their shape is pinned by
            // Tests/Golden/json/status-inputs.json, their presence here.
            if key == "inputs", value is [String: Any] { return "<machine inputs>" }
            // Which per-run limits hold depends on the machine's cgroups (pinned by json/status.json).
            if key == "runLimits", value is [Any] { return "<machine limits>" }
            switch value {
            case let object as [String: Any]:
                return Dictionary(uniqueKeysWithValues: object.map { ($0.key, walk($0.value, key: $0.key)) })
            case let array as [Any]:
                return array.map { walk($0, key: nil) }
            case let string as String:
                return string.replacingOccurrences(of: sandbox.root, with: "<sandbox>")
            default:
                return value
            }
        }
        let object = walk(try JSONSerialization.jsonObject(with: Data(text.utf8)), key: nil)
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        // Empty lists as agentctl prints them (docs/json.md), not as JSONSerialization does.
        return String(decoding: data, as: UTF8.self)
            .replacingOccurrences(of: #"\[\n\n *\]"#, with: "[]", options: .regularExpression)
    }

    /// Table or screen text with the sandbox path replaced and each match of `volatile` (times,
    /// durations, pids) replaced by `<t>`. A value padded in a table column (followed by two or
    /// more blanks) is replaced together with its padding by `<t>` padded to the same length, so
    /// the alignment of the columns after it is still compared; a value in running text is
    /// replaced alone.
    static func normalisedText(_ text: String, sandbox: Sandbox, volatile: [String]) -> String {
        var result = text.replacingOccurrences(of: sandbox.root, with: "<sandbox>")
        for pattern in volatile {
            guard let regex = try? NSRegularExpression(pattern: "(?:\(pattern))( *)") else {
                Issue.record("bad pattern \(pattern)")
                continue
            }
            let matches = regex.matches(in: result, range: NSRange(result.startIndex..., in: result)).reversed()
            for match in matches {
                guard let whole = Range(match.range, in: result), let blanks = Range(match.range(at: match.numberOfRanges - 1), in: result) else { continue }
                let placeholder = "<t>"
                if result[blanks].count >= 2 {
                    let length = result[whole].count
                    result.replaceSubrange(whole, with: placeholder.padding(toLength: max(length, placeholder.count + 2), withPad: " ", startingAt: 0))
                } else {
                    result.replaceSubrange(whole.lowerBound..<blanks.lowerBound, with: placeholder)
                }
            }
        }
        return machineInputsFolded(result.components(separatedBy: "\n"))
            .map { String($0.reversed().drop(while: { $0 == " " }).reversed()) }
            .joined(separator: "\n")
    }

    /// The inputs are this machine's (battery, temperatures, which netlink families exist): the
    /// lines of `status`'s Inputs block, and `watch`'s lines between its header and the first blank
    /// line, become one `<machine inputs>` line. Their layout is pinned by the render goldens.
    static func machineInputsFolded(_ lines: [String]) -> [String] {
        var result: [String] = []
        var folding = false
        var foldingLimits = false
        for (index, line) in lines.enumerated() {
            if foldingLimits {
                if line.hasPrefix("          ") { continue }
                foldingLimits = false
            }
            if folding {
                if line.trimmingCharacters(in: .whitespaces).isEmpty {
                    folding = false
                    result.append(line)
                }
                continue
            }
            if line.hasPrefix("limits:   ") {
                // The machine's cgroups decide which per-run limits hold (render/status-80.txt
                // pins the layout); a limit not enforced continues on indented lines.
                result.append("limits:   <machine limits>")
                foldingLimits = true
            } else if line == "Inputs:" {
                result += [line, "  <machine inputs>"]
                folding = true
            } else if index == 1, lines[0].hasPrefix("agentd "), lines[0].contains(" · up ") {
                result.append("<machine inputs>")
                folding = true
            } else {
                result.append(line)
            }
        }
        return result
    }

    /// Durations and moments as agentctl prints them: `12 s`, `3 min 20 s`, `0.4 s`, `just now`,
    /// `5 s ago`, `in 29 min` — each with the blanks that pad it in its column.
    static let timePatterns = [
        #"(?<![\w.])(in )?\d+(\.\d)? (s|min|h|d)( \d+ (s|min|h))?( ago)?(?![\w])(?!\.)"#,
        #"just now"#,
        #"(?<=pid )\d+"#,
    ]
}

/// An agent with a fixed set of jobs and two runs: `local.quick` finished, `local.export` running
/// with a title, subtitle, status and 42 % progress — the same every time.
struct FixtureAgent {
    let sandbox: Sandbox
    let agent: FileLoggedAgent

    init() throws {
        sandbox = try Sandbox()
        let export = sandbox.root + "/export.sh"
        try "#!/bin/bash\necho TITLE=Exporting Photos\necho SUBTITLE=42 of 100 complete\necho STATUS=copying\necho PROGRESS=42/100\necho reported\nwhile :; do sleep 1; done\n"
            .write(toFile: export, atomically: false, encoding: .utf8)
        chmod(export, 0o755)
        let quick = sandbox.root + "/quick.sh"
        try "#!/bin/sh\necho TITLE=Tidied\necho PROGRESS=1/1\necho removed 3 files\nexit 0\n".write(toFile: quick, atomically: false, encoding: .utf8)
        chmod(quick, 0o755)
        try sandbox.write("jobs.d/export.job", "[Job]\nIdentifier=local.export\nKind=processing\nExec=\(export)\nMaxRuntime=30min\n")
        try sandbox.write("jobs.d/quick.job", "[Job]\nIdentifier=local.quick\nKind=processing\nExec=\(quick)\n")
        // A warning (Interval is ignored for continued jobs) and an error (not permitted).
        try sandbox.write("jobs.d/feed.job", "[Job]\nIdentifier=local.feed\nKind=continued\nExec=\(sandbox.pluginPath)\nInterval=1h\n")
        try sandbox.write("jobs.d/denied.job", "[Job]\nIdentifier=other.denied\nKind=processing\nExec=\(sandbox.pluginPath)\n")
        // A file with errors: listed as `error (jobs.d/broken.job:5)`, not registered.
        try sandbox.write("jobs.d/broken.job", "[Job]\nIdentifier=local.broken\nKind=processing\nExec=\(sandbox.pluginPath)\nInterval=1x\n")
        agent = try FileLoggedAgent(sandbox: sandbox)
        let quickLaunch = try agent.ctl("simulate", "launch", "local.quick")
        #expect(quickLaunch.status == 0, "\(quickLaunch.stderr)")
        try agent.waitForLog("of local.quick ended:")
        let exportLaunch = try agent.ctl("simulate", "launch", "local.export")
        #expect(exportLaunch.status == 0, "\(exportLaunch.stderr)")
        try waitUntilExportReported()
    }

    /// Waits (with a deadline) until the export's title, subtitle, status and progress all show:
    /// the plugin logs `reported` right after those four lines, and the agent handles a plugin's
    /// lines in order.
    private func waitUntilExportReported() throws {
        try agent.waitForLog("] reported")
        let status = try json(try agent.ctl("status", "--json").stdout) as? [String: Any]
        let run = (status?["running"] as? [[String: Any]])?.first
        #expect(run?["progress"] != nil && run?["title"] != nil && run?["subtitle"] != nil && run?["statusText"] != nil)
    }

    /// agentctl with `COLUMNS=80`, output to a pipe (not a terminal).
    func ctl80(_ arguments: [String]) throws -> CommandResult {
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "80"
        environment["NO_COLOR"] = nil
        return try runCommand(Binaries.agentctl, ["--socket", sandbox.socketPath] + arguments, environment: environment)
    }
}
