// SPDX-License-Identifier: Apache-2.0
import AgentTestSupport
import Foundation
import Testing

/// Issue #16 end to end: a real agentd with `MetricsFile=`, a scripted sequence of runs, then
/// `agentctl metrics` and the file checked by promtool, against `status --json` and `history`,
/// and the file left alone while nothing changes.
@Suite(.serialized) struct MetricsTests {
    /// An agent with three continued jobs and a denied processing one (started only by the test: no scheduled run interferes),
    /// one broken job file, a fake /sys (AC and a battery at 80 %) and /proc, so the conditions
    /// hold still.
    final class Fleet {
        let sandbox: Sandbox
        let sysfs: FakeSysfsTree
        let proc: FakeProcTree
        let agent: AgentProcess
        var metricsFile: String { sandbox.root + "/node-exporter/agentd.prom" }

        init() throws {
            sandbox = try Sandbox()
            sysfs = try FakeSysfsTree()
            proc = try FakeProcTree()
            try sysfs.addMains(name: "AC", online: true)
            try sysfs.addBattery(name: "BAT0", capacity: 80, status: "Charging")
            try FileManager.default.createDirectory(atPath: sandbox.root + "/node-exporter", withIntermediateDirectories: true)
            try sandbox.write("agentd.conf", "[Agent]\nMetricsFile=\(sandbox.root)/node-exporter/agentd.prom\nMetricsInterval=1s\nDeny=local.denied\n")
            let fail = try sandbox.script("fail", "exit 3\n")
            let slow = try sandbox.script("slow", "exec sleep 600\n")
            try sandbox.write("jobs.d/ok.job", "[Job]\nIdentifier=local.ok\nKind=continued\nExec=\(sandbox.pluginPath)\n")
            try sandbox.write("jobs.d/fail.job", "[Job]\nIdentifier=local.fail\nKind=continued\nExec=\(fail)\n")
            try sandbox.write("jobs.d/slow.job", "[Job]\nIdentifier=local.slow\nKind=continued\nExec=\(slow)\n")
            try sandbox.write("jobs.d/denied.job", "[Job]\nIdentifier=local.denied\nKind=processing\nInterval=1h\nExec=\(sandbox.pluginPath)\n")
            try sandbox.write("jobs.d/bad.job", "[Job]\nIdentifier=local.bad\nKind=sometimes\nExec=\(sandbox.pluginPath)\n")
            agent = try AgentProcess(sandbox: sandbox,
                                     extraArguments: ["--sysfs-root", sysfs.sysfsRoot, "--proc-root", proc.procRoot,
                                                      "--simulated-machine"])
        }

        /// Two successes, a failure, two live runs.
        func runTheScript() throws {
            var seen = agent.logLines.count
            for (job, end) in [("ok", "ended: success"), ("ok", "ended: success"), ("fail", "ended: failure(exit 3)")] {
                #expect(try agent.ctl("simulate", "launch", "local.\(job)").status == 0)
                let line = try agent.waitForLog("of local.\(job) \(end)", after: seen)
                seen = agent.logLines.firstIndex(of: line).map { $0 + 1 } ?? seen
            }
            #expect(try agent.ctl("simulate", "launch", "local.slow").status == 0)
            try agent.waitForLog("of local.slow started", after: seen)
            let queued = try agent.ctl("submit", "local.slow", "--strategy", "queue")
            #expect(queued.status == 0, "submit failed: \(queued.stderr)")
        }

        func metricsText() throws -> String {
            let result = try agent.ctl("metrics")
            #expect(result.status == 0, "agentctl metrics failed: \(result.stderr)")
            return result.stdout
        }

        /// Waits (inotify on the directory, with a deadline) until the metrics file holds `expected`.
        func waitForFile(toEqual expected: String, timeout: Double = 20) throws -> String {
            let deadline = Date().addingTimeInterval(timeout)
            let waiter = InotifyWaiter.directoryChanges(FileSystemPaths.parent(of: metricsFile))
            while true {
                let text = (try? String(contentsOfFile: metricsFile, encoding: .utf8)) ?? ""
                if text == expected { return text }
                let left = deadline.timeIntervalSinceNow
                guard left > 0 else {
                    Issue.record("the metrics file did not become the agentctl metrics text within \(timeout) s; it holds:\n\(text)")
                    throw POSIXError(.ETIMEDOUT)
                }
                waiter?.wait(seconds: min(left, 0.5))
            }
        }
    }

    /// promtool (Debian's `prometheus` package) lints a metrics text; nil when it is not installed.
    static func promtool(_ path: String) throws -> CommandResult? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool") else { return nil }
        return try runCommand("/bin/sh", ["-c", "exec /usr/bin/promtool check metrics < \"$1\"", "sh", path])
    }

    @Test func promtoolAcceptsTheMetricsAndTheFileAndTheyMatchStatus() throws {
        let fleet = try Fleet()
        try fleet.runTheScript()
        let text = try fleet.metricsText()
        let fileText = try fleet.waitForFile(toEqual: text)

        let printed = fleet.sandbox.root + "/printed.prom"
        try text.write(toFile: printed, atomically: false, encoding: .utf8)
        for path in [printed, fleet.metricsFile] {
            if let lint = try Self.promtool(path) {
                #expect(lint.status == 0, "promtool check metrics \(path): \(lint.stdout)\(lint.stderr)")
            } else {
                Issue.record("promtool is missing: scripts/install-deps.sh installs it (package prometheus)")
            }
        }
        #expect(fileText == text)

        // The figures against status --json and history --json.
        let samples = PromSamples(text)
        let status = try json(try fleet.agent.ctl("status", "--json").stdout) as? [String: Any] ?? [:]
        let running = status["running"] as? [[String: Any]] ?? []
        // The queued submission started at once: continued runs of one job may run side by side.
        #expect(running.count == 2)
        #expect(samples["agentd_runs_running{kind=\"continued\"}"] == Double(running.count))
        #expect(samples["agentd_runs_running{kind=\"refresh\"}"] == 0)
        let pendingTotal = ["refresh", "processing", "continued"].compactMap { samples["agentd_runs_pending{kind=\"\($0)\"}"] }.reduce(0, +)
        #expect(pendingTotal == Double(status["pendingCount"] as? Int ?? -1))
        // The denied processing job waits ("restricted").
        #expect(samples["agentd_runs_pending{kind=\"processing\"}"] == 1)
        #expect(samples["agentd_budget_launches_left{manifest=\"local\"}"] == Double(status["budgetLeft"] as? Int ?? -1))
        #expect(samples["agentd_budget_launches{manifest=\"local\"}"] == Double(status["dailyBudget"] as? Int ?? -1))
        let errors = (status["diagnostics"] as? [[String: Any]] ?? []).filter { $0["severity"] as? String == "error" }
        #expect(errors.count == 1)
        #expect(samples["agentd_config_errors"] == Double(errors.count))
        #expect(samples["agentd_jobs"] == Double(status["jobCount"] as? Int ?? -1))
        #expect(samples["agentd_start_time_seconds"].map { $0 * 1000 } == JSONInstant.milliseconds(status["startedAt"]).map(Double.init))
        #expect(samples["agentd_build_info{version=\"\(status["version"] as? String ?? "?")\"}"] == 1)
        #expect(samples["agentd_external_power"] == 1)
        #expect(samples["agentd_battery_percent"] == 80)

        let history = try json(try fleet.agent.ctl("history", "--json", "--limit", "50").stdout) as? [[String: Any]] ?? []
        func ended(_ id: String, _ reason: String) -> Double {
            Double(history.filter { $0["identifier"] as? String == id && $0["stopReason"] as? String == reason }.count)
        }
        #expect(samples["agentd_runs_ended_total{identifier=\"local.ok\",stop_reason=\"success\"}"] == ended("local.ok", "success"))
        #expect(ended("local.ok", "success") == 2)
        #expect(samples["agentd_runs_ended_total{identifier=\"local.fail\",stop_reason=\"failure\"}"] == ended("local.fail", "failure(exit 3)"))
        #expect(samples["agentd_run_duration_seconds_count{kind=\"continued\"}"] == 3)
        #expect(samples["agentd_run_duration_seconds_bucket{kind=\"continued\",le=\"+Inf\"}"] == 3)
        // The last success is the newest successful run's end, in seconds.
        let newestSuccess = history.filter { $0["identifier"] as? String == "local.ok" && $0["stopReason"] as? String == "success" }
            .compactMap { JSONInstant.milliseconds($0["endedAt"]) }.max()
        #expect(samples["agentd_job_last_success_timestamp_seconds{identifier=\"local.ok\",kind=\"continued\"}"] == newestSuccess.map { Double($0) / 1000 })
        #expect(samples["agentd_job_last_success_timestamp_seconds{identifier=\"local.fail\",kind=\"continued\"}"] == nil)
        // Two successes within 24 h of a job first run today: fresh on the one day it has existed,
        // as agentctl stats says.
        let stats = try json(try fleet.agent.ctl("stats", "--json").stdout) as? [[String: Any]] ?? []
        let okStats = stats.first { $0["identifier"] as? String == "local.ok" }
        #expect(samples["agentd_job_run_rate_ratio{identifier=\"local.ok\",kind=\"continued\"}"] == okStats?["freshDayShare"] as? Double)
        #expect(samples["agentd_job_run_rate_ratio{identifier=\"local.ok\",kind=\"continued\"}"] == 1)
        // The broken job has no series: identifiers only where a job exists.
        #expect(!text.contains("local.bad"))
    }

    @Test func theFileIsNotRewrittenWhileNothingChanges() throws {
        let fleet = try Fleet()
        try fleet.runTheScript()
        _ = try fleet.waitForFile(toEqual: try fleet.metricsText())
        let before = try FileIdentity(fleet.metricsFile)

        // Reads, and a SIGHUP (rescan, conditions re-read: it marks the metrics dirty, the text
        // renders the same), over more than three MetricsInterval=1s, measured by the agent's own clock.
        let seen = fleet.agent.logLines.count
        kill(fleet.agent.process.processIdentifier, SIGHUP)
        try fleet.agent.waitForLog("SIGHUP: rescanning", after: seen)
        let startUptime = try Self.uptime(fleet.agent)
        let deadline = Date().addingTimeInterval(30)
        var requests = 0
        // Between reads, wait for the event that must not come: a write in the metrics directory.
        let idleWatch = InotifyWaiter.directoryChanges(FileSystemPaths.parent(of: fleet.metricsFile))
        while try Self.uptime(fleet.agent) < startUptime + 4, Date() < deadline {
            #expect(try fleet.agent.ctl("status").status == 0)
            requests += 1
            #expect(idleWatch?.wait(seconds: 0.25) != true, "the metrics directory changed while nothing happened")
        }
        #expect(try Self.uptime(fleet.agent) >= startUptime + 4, "the agent's uptime did not advance")
        #expect(requests >= 3)
        #expect(try FileIdentity(fleet.metricsFile) == before, "the metrics file was rewritten while nothing changed")

        // The control: a change is written (a new file renamed into place).
        #expect(try fleet.agent.ctl("cancel", "local.slow").status == 0)
        try fleet.agent.waitForLog("ended: cancelled", after: seen)
        let deadlineChange = Date().addingTimeInterval(20)
        let waiter = InotifyWaiter.directoryChanges(FileSystemPaths.parent(of: fleet.metricsFile))
        let cancelled = "agentd_runs_ended_total{identifier=\"local.slow\",stop_reason=\"cancelled\"} 2"
        var text = ""
        while Date() < deadlineChange {
            text = (try? String(contentsOfFile: fleet.metricsFile, encoding: .utf8)) ?? ""
            if text.contains(cancelled) { break }
            waiter?.wait(seconds: 0.5)
        }
        #expect(text.contains(cancelled))
        #expect(try FileIdentity(fleet.metricsFile) != before)
    }

    @Test func afterARestartCountersStartAtZeroWhileLastSuccessAndRunRateRemain() throws {
        let fleet = try Fleet()
        try fleet.runTheScript()
        let before = PromSamples(try fleet.metricsText())
        fleet.agent.stop()
        let again = try AgentProcess(sandbox: fleet.sandbox,
                                     extraArguments: ["--sysfs-root", fleet.sysfs.sysfsRoot, "--proc-root", fleet.proc.procRoot,
                                                      "--simulated-machine"])
        let result = try again.ctl("metrics")
        #expect(result.status == 0)
        let after = PromSamples(result.stdout)
        let ok = "{identifier=\"local.ok\",kind=\"continued\"}"
        #expect(after["agentd_job_last_success_timestamp_seconds" + ok] != nil)
        #expect(after["agentd_job_last_success_timestamp_seconds" + ok] == before["agentd_job_last_success_timestamp_seconds" + ok])
        // The first run, read back from the store: still judged on its one day.
        #expect(after["agentd_job_run_rate_ratio" + ok] == 1)
        // Counters restart at 0 (Prometheus takes it as a counter reset); the live runs ended agent-restart.
        #expect(after["agentd_runs_ended_total{identifier=\"local.ok\",stop_reason=\"success\"}"] == nil)
        #expect(after["agentd_run_duration_seconds_count{kind=\"continued\"}"] == 0)
        #expect((after["agentd_start_time_seconds"] ?? 0) >= (before["agentd_start_time_seconds"] ?? 0))
    }

    @Test func aMovedMetricsFileLeavesNoStaleCopyBehind() throws {
        let fleet = try Fleet()
        _ = try fleet.waitForFile(toEqual: try fleet.metricsText())
        let moved = fleet.sandbox.root + "/node-exporter/moved.prom"
        let seen = fleet.agent.logLines.count
        try fleet.sandbox.writeAtomically("agentd.conf", "[Agent]\nMetricsFile=\(moved)\nMetricsInterval=1s\nDeny=local.denied\n")
        try fleet.agent.waitForLog("metrics file \(fleet.metricsFile) removed", after: seen)
        #expect(FileManager.default.fileExists(atPath: moved))
        #expect(!FileManager.default.fileExists(atPath: fleet.metricsFile))
        // No MetricsFile= at all: the file goes too.
        try fleet.sandbox.writeAtomically("agentd.conf", "[Agent]\nDeny=local.denied\n")
        try fleet.agent.waitForLog("metrics file \(moved) removed", after: seen)
        #expect(!FileManager.default.fileExists(atPath: moved))
    }

    static func uptime(_ agent: AgentProcess) throws -> Int {
        let status = try json(try agent.ctl("status", "--json").stdout) as? [String: Any] ?? [:]
        return status["uptimeSeconds"] as? Int ?? 0
    }

    /// Issue 28 item 6: `MetricsFile=` replaced a file that was not its own (a stand-in for
    /// /etc/passwd got metrics) and, when the setting went, deleted it. It now writes only a file
    /// it made, says why not in `status`, and removes only its own.
    @Test func aFileThatIsNotTheAgentsMetricsIsNeitherReplacedNorRemoved() throws {
        let sandbox = try Sandbox()
        let passwd = sandbox.root + "/passwd"
        let original = "root:x:0:0:root:/root:/bin/bash\n"
        try original.write(toFile: passwd, atomically: false, encoding: .utf8)
        try sandbox.write("agentd.conf", "[Agent]\nMetricsFile=\(passwd)\nMetricsInterval=1s\n")
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("metrics file: \(passwd) exists and is not a metrics file agentd wrote")
        #expect(try String(contentsOfFile: passwd, encoding: .utf8) == original)
        let status = try json(try agent.ctl("status", "--json").stdout) as? [String: Any]
        #expect((status?["metricsFileProblem"] as? String)?.contains("neither replaces nor removes it") == true)
        #expect(try agent.ctl("status").stdout.contains("is not a metrics file agentd wrote"))
        // The setting moves to a path of the agent's own: the old file stays, every byte of it,
        // and the new one is written (waited for through inotify on its directory).
        let own = sandbox.root + "/agentd.prom"
        let waiter = InotifyWaiter.directoryChanges(sandbox.root)
        try sandbox.writeAtomically("agentd.conf", "[Agent]\nMetricsFile=\(own)\nMetricsInterval=1s\n")
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: own) {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else {
                Issue.record("the metrics file \(own) was not written within 20 s")
                throw POSIXError(.ETIMEDOUT)
            }
            waiter?.wait(seconds: min(left, 1))
        }
        #expect(MetricsFileSignature.matches(try String(contentsOfFile: own, encoding: .utf8)))
        let after = try json(try agent.ctl("status", "--json").stdout) as? [String: Any]
        #expect(after?["metricsFileProblem"] == nil)
        #expect(try String(contentsOfFile: passwd, encoding: .utf8) == original)
    }
}

/// Inode and modification time (ns): a rename into place or a rewrite changes one of them.
struct FileIdentity: Equatable {
    var inode: UInt64
    var modified: Int

    init(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { throw POSIXError(.ENOENT) }
        inode = UInt64(info.st_ino)
        modified = info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec
    }
}

/// `name{labels} value` lines of a Prometheus text, by `name{labels}`.
struct PromSamples {
    private var values: [String: Double] = [:]

    init(_ text: String) {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            let value = line[line.index(after: space)...]
            values[String(line[..<space])] = value == "+Inf" ? .infinity : Double(value)
        }
    }

    subscript(_ key: String) -> Double? { values[key] }
}

enum FileSystemPaths {
    static func parent(of path: String) -> String { (path as NSString).deletingLastPathComponent }

}

/// How agentd's metrics files begin (`MetricsFileWriter.signature`).
enum MetricsFileSignature {
    static func matches(_ text: String) -> Bool { text.hasPrefix("# HELP agentd_build_info ") }
}
