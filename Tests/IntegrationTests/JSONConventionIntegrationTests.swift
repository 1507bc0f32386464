// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// docs/json.md against a real agentd: every read command's `--json`, with a run that printed
/// nothing in its history.
@Suite struct JSONConventionIntegrationTests {
    static let instants: Set = ["startedAt", "endedAt", "deadline", "earliestBegin", "time", "refillsAt"]

    @Test func everyReadCommandPrintsTheOneConvention() throws {
        let sandbox = try Sandbox()
        let quiet = try sandbox.script("quiet", "exit 0\n")
        try sandbox.write("jobs.d/quiet.job", "[Job]\nIdentifier=local.quiet\nKind=processing\nExec=\(quiet)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let launched = try agent.ctl("simulate", "launch", "local.quiet")
        #expect(launched.status == 0, "\(launched.stderr)")
        try agent.waitForLog("of local.quiet ended:")

        let commands = [["status"], ["list"], ["history"], ["pending"], ["explain", "local.quiet"], ["stats"],
                        ["resources"], ["check", sandbox.configDirectory]]
        var seen: [String: Any] = [:]
        for command in commands {
            let result = try runCommand(Binaries.agentctl, ["--socket", sandbox.socketPath] + command + ["--json"])
            let name = command.joined(separator: " ")
            #expect(result.status == 0, "agentctl \(name) --json: \(result.stderr)")
            #expect(!result.stdout.contains(#"\/"#), "agentctl \(name) --json escapes slashes")
            #expect(!result.stdout.contains("null"), "agentctl \(name) --json prints null for an absent value")
            let value = try json(result.stdout)
            Self.check(value, key: nil, in: name)
            seen[command[0]] = value
        }

        let run = (seen["history"] as? [[String: Any]])?.first ?? [:]
        #expect(run["stopReason"] as? String == "success")
        #expect(run["stopKind"] as? String == "success")
        #expect(run["logTail"] as? [String] == [], "a run that printed nothing has logTail []")
        let started = JSONInstant.milliseconds(run["startedAt"]), ended = JSONInstant.milliseconds(run["endedAt"])
        #expect(started != nil && ended != nil && (started ?? 0) <= (ended ?? 0))
        let timeline = (seen["explain"] as? [String: Any])?["timeline"] as? [[String: Any]] ?? []
        #expect(!timeline.isEmpty, "explain has the launch and the end in its timeline")
        #expect(JSONInstant.milliseconds((seen["status"] as? [String: Any])?["startedAt"]) != nil)
    }

    /// packaging/bash-completion/agentctl completes identifiers from `list --json` and live run
    /// ids from `status --json`: the shapes it reads must keep working.
    @Test func bashCompletionStillFindsIdentifiersAndRunIDs() throws {
        let sandbox = try Sandbox()
        let slow = try sandbox.script("slow", "echo ready\nexec sleep 60\n")
        try sandbox.write("jobs.d/slow.job", "[Job]\nIdentifier=local.slow\nKind=processing\nExec=\(slow)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let launched = try agent.ctl("simulate", "launch", "local.slow")
        #expect(launched.status == 0, "\(launched.stderr)")
        try agent.waitForLog("[local.slow r000001] ready")
        let completion = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("packaging/bash-completion/agentctl").path
        let script = "source '\(completion)'; _agentctl_socket=(--socket '\(sandbox.socketPath)'); _agentctl_targets runs"
        let result = try runCommand("/bin/bash", ["-c", script],
                                    environment: ["PATH": Binaries.directory + ":/usr/bin:/bin"])
        #expect(result.stdout.split(separator: "\n").map(String.init) == ["local.slow", "r000001"], "\(result.stdout)\(result.stderr)")
        agent.stop()
    }

    /// Instants are RFC 3339 UTC with milliseconds, `…Seconds` are numbers, no list is `[""]`.
    static func check(_ value: Any, key: String?, in command: String) {
        if let key, instants.contains(key) {
            #expect(JSONInstant.milliseconds(value) != nil, "agentctl \(command) --json: \(key) is \(value), not RFC 3339 UTC with milliseconds")
        }
        if let key, key.hasSuffix("Seconds") {
            #expect(value is NSNumber && !(value is String), "agentctl \(command) --json: \(key) is \(value), not a number")
        }
        switch value {
        case let object as [String: Any]:
            for (childKey, child) in object { check(child, key: childKey, in: command) }
        case let array as [Any]:
            #expect((array as? [String]) != [""], "agentctl \(command) --json: \(key ?? "a list") is [\"\"]")
            for element in array { check(element, key: nil, in: command) }
        default:
            break
        }
    }
}
