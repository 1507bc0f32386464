// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `agentctl list` is `systemctl list-timers`' view (DESIGN §8): each job's LAST and RESULT are
/// its own last run, however many runs other jobs have had since.
@Suite(.serialized) struct ListIntegrationTests {
    private static let sqlite = "/usr/bin/sqlite3"

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: sqlite), "needs the sqlite3 program to add runs to state.db"))
    func aDailyJobKeepsItsLastRunBehindAThousandRunsOfAnother() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/daily.job", "[Job]\nIdentifier=local.daily\nKind=processing\nExec=/bin/false\n")
        try sandbox.write("jobs.d/minute.job", "[Job]\nIdentifier=local.minute\nKind=processing\nExec=/bin/true\n")
        let first = try AgentProcess(sandbox: sandbox)
        #expect(try first.ctl("run", "local.daily").status == 0)
        try first.waitForLog("of local.daily ended: failure(exit 1)")
        first.stop()

        // A minute job's day and a half: 1,000 runs newer than the daily job's.
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let added = try runCommand(Self.sqlite, [sandbox.stateDirectory + "/state.db", """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
            INSERT INTO runs (run_id, identifier, job, kind, reason, started_at, ended_at, stop_reason)
            SELECT printf('r9%05d', i), 'local.minute', 'local.minute', 'processing', 'scheduled',
                   \(now) + i, \(now) + i + 1, 'success' FROM n;
            """])
        #expect(added.status == 0, "sqlite3: \(added.stderr)")

        let agent = try AgentProcess(sandbox: sandbox)
        let list = try agent.ctl("list")
        #expect(list.status == 0, "\(list.stderr)")
        let daily = list.stdout.split(separator: "\n").first { $0.contains("local.daily") }.map(String.init) ?? ""
        #expect(daily.contains("failure(exit 1)"), "\(list.stdout)")
        #expect(daily.contains("just now") || daily.contains(" ago"), "PASSED is shown: \(list.stdout)")
    }

    /// A job whose run is live is `running` in every view of list, whatever waits behind the
    /// run: `--files` and `--json` showed the pending request's wait instead.
    @Test func aRunningJobIsRunningInEveryViewEvenWithARequestBehindIt() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/slow.job", "[Job]\nIdentifier=local.slow\nKind=processing\nExec=/bin/sleep 60\n")
        let agent = try AgentProcess(sandbox: sandbox)
        defer { agent.stop() }
        #expect(try agent.ctl("run", "local.slow").status == 0)
        try agent.waitForLog("of local.slow started")
        #expect(try agent.ctl("request", "local.slow", "--earliest", "+1h").status == 0)
        let listed = try json(try agent.ctl("list", "--json").stdout) as? [[String: Any]] ?? []
        let slow = listed.first { $0["identifier"] as? String == "local.slow" }
        #expect(slow?["waiting"] as? String == "running", "\(slow ?? [:])")
        #expect(slow?["waitingReason"] as? String == "running", "\(slow ?? [:])")
        let files = try agent.ctl("list", "--files").stdout
        #expect(files.split(separator: "\n").first { $0.hasPrefix("local.slow") }?.hasSuffix("running") == true, "\(files)")
        #expect(try agent.ctl("cancel", "local.slow").status == 0)
    }

    /// agentctl.md: while its run is live, NEXT says when the next run is due.
    @Test func aRunningIntervalJobShowsWhenItsNextRunIsDue() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/slow.job", "[Job]\nIdentifier=local.slow\nKind=processing\nExec=/bin/sleep 60\nInterval=10min\n")
        let agent = try AgentProcess(sandbox: sandbox)
        defer { agent.stop() }
        try agent.waitForLog("of local.slow started")
        let listed = try json(try agent.ctl("list", "--json").stdout) as? [[String: Any]] ?? []
        let slow = listed.first { $0["identifier"] as? String == "local.slow" }
        #expect(slow?["waitingReason"] as? String == "running", "\(slow ?? [:])")
        let next = Double(try #require(JSONInstant.milliseconds(slow?["waitingUntil"] as Any), "\(slow ?? [:])")) / 1000
        let started = Date().timeIntervalSince1970
        #expect(next > started + 540 && next < started + 610, "next \(next), now \(started)")
        let table = try agent.ctl("list").stdout
        #expect(table.split(separator: "\n").first { $0.contains("local.slow") }?.hasPrefix("-") == false, "\(table)")
        #expect(try agent.ctl("cancel", "local.slow").status == 0)
    }

    /// agentd writes a wait's time in its zone; agentctl in another shows NEXT and the wait's
    /// time in its own, the same instant read the same way on one row.
    @Test func aRowSaysOneTimeInOneZoneWhenAgentctlsZoneDiffers() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/slow.job", "[Job]\nIdentifier=local.slow\nKind=processing\nExec=/bin/true\nInterval=1h\n")
        let agent = try AgentProcess(sandbox: sandbox, environment: ["TZ": "Europe/Berlin"])
        defer { agent.stop() }
        try agent.waitForLog("of local.slow ended:")
        let tokyo = try runCommand(Binaries.agentctl, ["--socket", sandbox.socketPath, "list"],
                                   environment: ["TZ": "Asia/Tokyo", "COLUMNS": "200"])
        let row = try #require(tokyo.stdout.split(separator: "\n").first { $0.contains("local.slow") }.map(String.init))
        // NEXT's `Tue 2026-12-08 03:31:31 JST` and the wait's `(earliest 03:31)`.
        let next = try #require(row.split(separator: " ", omittingEmptySubsequences: true).dropFirst(2).first)
        #expect(row.contains("waiting: interval (earliest ") && row.hasSuffix("\(next.prefix(5)))"), "\(row)")
    }

    /// DESIGN §9: a reader who is not root sees of a job what its file would tell them if they
    /// could read it, a file in error too: a readable one shows its Exec=, a private one does not.
    @Test(.enabled(if: getuid() == 0, "needs root: the reader is nobody"))
    func aFileInErrorShowsItsExecToWhoeverMayReadIt() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/open.job", "[Job]\nIdentifier=local.open\nExec=/bin/true --open\nInterval=banana\n", mode: 0o644)
        try sandbox.write("jobs.d/closed.job", "[Job]\nIdentifier=local.closed\nExec=/bin/true --closed\nInterval=banana\n", mode: 0o600)
        let agent = try AgentProcess(sandbox: sandbox)
        defer { agent.stop() }
        chmod(sandbox.root, 0o755)  // nobody reaches the socket (0666) through it
        let listed = try runCommand("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups",
                                                         Binaries.agentctl, "--socket", sandbox.socketPath, "list", "--json"])
        let jobs = try json(listed.stdout) as? [[String: Any]] ?? []
        let exec = { (id: String) in jobs.first { $0["identifier"] as? String == id }?["exec"] as? [String] }
        #expect(exec("local.open") == ["/bin/true"], "\(listed.stdout)\(listed.stderr)")
        #expect(exec("local.closed") == [], "\(listed.stdout)")
    }
}
