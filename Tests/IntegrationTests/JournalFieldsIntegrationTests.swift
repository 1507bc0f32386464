// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Issue #16 item 2 end to end: a real agentd whose stderr is "the journal" (JOURNAL_STREAM names
/// it, as systemd does for a service), logging into a systemd-journald run for the test in a
/// private mount namespace (its own /run, the journal files in the sandbox), then read back with
/// `journalctl -D` by field. Without root, journald or unshare it is skipped, saying why.
@Suite(.serialized) struct JournalFieldsIntegrationTests {
    static let journald = "/lib/systemd/systemd-journald"

    static var canRunJournald: Bool {
        geteuid() == 0 && FileManager.default.isExecutableFile(atPath: journald)
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/journalctl")
    }

    /// Starts journald, then — once the test, told READY=1 by journald on its notification
    /// socket, has written to the `go` FIFO — agentd with its stderr on a file that JOURNAL_STREAM
    /// names, saying READY=1 on its own; on SIGTERM stops agentd, then journald (which flushes),
    /// and exits.
    static let harness = #"""
        set -eu
        sandbox=$1; shift
        mount -t tmpfs -o mode=0755 tmpfs /run
        mkdir -p /run/systemd/journal /run/log/journal
        mount --bind "$sandbox/journal" /run/log/journal
        # A machine with a persistent journal: keep this one out of it too.
        if [ -d /var/log/journal ]; then mount --bind "$sandbox/journal" /var/log/journal; fi
        NOTIFY_SOCKET="$sandbox/journald.notify" /lib/systemd/systemd-journald >"$sandbox/journald.out" 2>&1 &
        journald=$!
        read -r _ <"$sandbox/go"
        : >"$sandbox/agentd.err"
        NOTIFY_SOCKET="$sandbox/agentd.notify" JOURNAL_STREAM=$(stat -c '%d:%i' "$sandbox/agentd.err") \
            "$@" 2>>"$sandbox/agentd.err" &
        agent=$!
        trap 'kill -TERM $agent; wait $agent || true; kill -TERM $journald; wait $journald || true; exit 0' TERM
        wait $agent || true
        kill -TERM $journald; wait $journald || true
        """#

    final class JournaledAgent {
        let sandbox: Sandbox
        let process = Process()

        init(sandbox: Sandbox) throws {
            self.sandbox = sandbox
            try FileManager.default.createDirectory(atPath: sandbox.root + "/journal", withIntermediateDirectories: true)
            let script = sandbox.root + "/harness.sh"
            try JournalFieldsIntegrationTests.harness.write(toFile: script, atomically: false, encoding: .utf8)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
            process.arguments = ["-m", "--propagation", "private", "/bin/sh", script, sandbox.root, Binaries.agentd,
                                 "--config-dir", sandbox.configDirectory, "--state-dir", sandbox.stateDirectory,
                                 "--socket", sandbox.socketPath]
            process.standardOutput = FileHandle.nullDevice
            guard mkfifo(sandbox.root + "/go", 0o600) == 0,
                  let journald = NotifySocket(path: sandbox.root + "/journald.notify"),
                  let agent = NotifySocket(path: sandbox.root + "/agentd.notify") else {
                throw POSIXError(.EIO)
            }
            try process.run()
            guard journald.wait(for: "READY=1", seconds: 20) else {
                Issue.record("the test journald did not say READY=1 within 20 s: \(journaldText)")
                throw POSIXError(.ETIMEDOUT)
            }
            // The harness waits on the FIFO: opening it for writing lets agentd start.
            try "go\n".write(toFile: sandbox.root + "/go", atomically: false, encoding: .utf8)
            guard agent.wait(for: "READY=1", seconds: 20) else {
                Issue.record("agentd under the test journald did not say READY=1 within 20 s: \(stderrText)")
                throw POSIXError(.ETIMEDOUT)
            }
            // READY=1 comes once the control socket is open.
            #expect(try ctl("status").status == 0)
        }

        deinit { stop() }

        var journaldText: String {
            (try? String(contentsOfFile: sandbox.root + "/journald.out", encoding: .utf8)) ?? ""
        }

        var stderrText: String {
            (try? String(contentsOfFile: sandbox.root + "/agentd.err", encoding: .utf8)) ?? ""
        }

        func ctl(_ arguments: String...) throws -> CommandResult {
            try runCommand(Binaries.agentctl, ["--socket", sandbox.socketPath] + arguments)
        }

        func stop() {
            guard process.isRunning else { return }
            process.terminate()
            process.waitUntilExit()
        }

        /// The entries matching `matches` (`FIELD=value`), as journalctl's JSON objects.
        func entries(_ matches: String...) throws -> [[String: Any]] {
            let result = try runCommand("/usr/bin/journalctl", ["-D", sandbox.root + "/journal/" + machineID(),
                                                                "--no-pager", "-o", "json"] + matches)
            return result.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }

        private func machineID() -> String {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: sandbox.root + "/journal")) ?? []
            return names.first ?? "?"
        }
    }

    @Test(.enabled(if: canRunJournald, "needs root, /lib/systemd/systemd-journald, unshare and journalctl (a journald in a private mount namespace)"))
    func runsEndsExpiriesConfigErrorsAndPluginLinesCarryTheirFields() throws {
        let sandbox = try Sandbox()
        let out = try sandbox.script("out", "echo 'hello fleet'\nexit 3\n")
        let slow = try sandbox.script("slow", "exec sleep 600\n")
        try sandbox.write("jobs.d/out.job", "[Job]\nIdentifier=local.out\nKind=continued\nExec=\(out)\n")
        try sandbox.write("jobs.d/slow.job", "[Job]\nIdentifier=local.slow\nKind=continued\nExec=\(slow)\n")
        try sandbox.write("jobs.d/bad.job", "[Job]\nIdentifier=local.bad\nKind=sometimes\nExec=\(sandbox.pluginPath)\n")
        let agent = try JournaledAgent(sandbox: sandbox)

        // submit --wait returns when the run has ended.
        _ = try agent.ctl("submit", "local.out", "--wait")
        #expect(try agent.ctl("simulate", "launch", "local.slow").status == 0)
        #expect(try agent.ctl("simulate", "expire", "local.slow").status == 0)
        // No wait for the end: stopping the agent waits for every live run to be gone, and an
        // expiring run keeps its first stop reason, expired(simulated).
        agent.stop()

        // Nothing of that went to stderr: it went to the journal.
        #expect(!agent.stderrText.contains("local.out"), "stderr: \(agent.stderrText)")

        let started = try agent.entries("MESSAGE_ID=10921d5ab3e64916b415d4ecdf125067", "AGENTD_IDENTIFIER=local.out")
        #expect(started.count == 1)
        let runID = started.first?["AGENTD_RUN_ID"] as? String
        #expect(runID?.hasPrefix("r") == true)
        #expect(started.first?["PRIORITY"] as? String == "6")
        #expect(started.first?["SYSLOG_IDENTIFIER"] as? String == "agentd")

        let ended = try agent.entries("MESSAGE_ID=96b664571be54d06981768a608fc2305", "AGENTD_IDENTIFIER=local.out")
        #expect(ended.first?["AGENTD_STOP_REASON"] as? String == "failure(exit 3)")
        #expect(ended.first?["AGENTD_RUN_ID"] as? String == runID)

        let output = try agent.entries("MESSAGE_ID=b19063d34c514d7fb3f548b19ddeb2c9", "AGENTD_IDENTIFIER=local.out")
        #expect(output.contains { ($0["MESSAGE"] as? String)?.hasSuffix("hello fleet") == true && $0["AGENTD_RUN_ID"] as? String == runID })

        let expired = try agent.entries("MESSAGE_ID=e4b8bc59ac6540559c745fd80f86e753", "AGENTD_IDENTIFIER=local.slow")
        #expect(expired.first?["AGENTD_STOP_REASON"] as? String == "expired(simulated)")
        #expect(try agent.entries("AGENTD_STOP_REASON=expired(simulated)", "MESSAGE_ID=96b664571be54d06981768a608fc2305").count == 1)

        let configErrors = try agent.entries("MESSAGE_ID=df5ae662d13e44b59e488883abe19d7d")
        #expect(configErrors.contains { ($0["MESSAGE"] as? String)?.contains("bad.job") == true && $0["PRIORITY"] as? String == "3" })
    }
}
