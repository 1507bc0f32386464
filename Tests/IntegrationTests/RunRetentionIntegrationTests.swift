// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The runs table is bounded (docs/agentd.md, "State"): finished runs that started more than 30
/// days ago go, but each job keeps its newest 100.
@Suite(.serialized) struct RunRetentionIntegrationTests {
    private static let sqlite = "/usr/bin/sqlite3"

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: sqlite), "needs the sqlite3 program to add runs to state.db"))
    func runsOlderThanThirtyDaysGoWhenTheAgentStartsButEachJobKeepsItsNewestHundred() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/old.job", "[Job]\nIdentifier=local.old\nKind=processing\nExec=/bin/true\n")
        try sandbox.write("jobs.d/rare.job", "[Job]\nIdentifier=local.rare\nKind=processing\nExec=/bin/true\n")
        try AgentProcess(sandbox: sandbox).stop()

        // local.old: 150 runs six hours apart, all started 31 days ago or more, and 10 recent ones;
        // local.rare: 5 runs, each a year old. An earlier agent's live run stays.
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let month: Int64 = 31 * 86_400_000
        let database = sandbox.stateDirectory + "/state.db"
        let added = try runCommand(Self.sqlite, [database, """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 150)
            INSERT INTO runs (run_id, identifier, job, kind, reason, started_at, ended_at, stop_reason, log_tail)
            SELECT printf('r8%05d', i), 'local.old', 'local.old', 'processing', 'scheduled',
                   \(now - month) - i * 21600000, \(now - month) - i * 21600000 + 1000, 'success', 'a line' FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10)
            INSERT INTO runs (run_id, identifier, job, kind, reason, started_at, ended_at, stop_reason)
            SELECT printf('r9%05d', i), 'local.old', 'local.old', 'processing', 'scheduled',
                   \(now) - i * 60000, \(now) - i * 60000 + 1000, 'success' FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5)
            INSERT INTO runs (run_id, identifier, job, kind, reason, started_at, ended_at, stop_reason)
            SELECT printf('r7%05d', i), 'local.rare', 'local.rare', 'processing', 'scheduled',
                   \(now) - 365 * 86400000 - i, \(now) - 365 * 86400000 - i + 1000, 'success' FROM n;
            """])
        #expect(added.status == 0, "sqlite3: \(added.stderr)")

        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("state database: removed 60 finished runs started more than 30 days ago (each job keeps its newest 100)")
        #expect(try agent.ctl("status").status == 0)
        // A run's end after the start's pass adds nothing to remove (the next pass is an hour away).
        #expect(try agent.ctl("run", "local.old").status == 0)
        try agent.waitForLog("of local.old ended: success")
        agent.stop()

        func count(_ sql: String) throws -> String {
            let result = try runCommand(Self.sqlite, [database, sql])
            #expect(result.status == 0, "sqlite3: \(result.stderr)")
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try count("SELECT COUNT(*) FROM runs WHERE job = 'local.old'") == "101")
        // The oldest went: the 90 newest old runs are left beside the recent ones.
        #expect(try count("SELECT MAX(run_id) FROM runs WHERE run_id LIKE 'r8%'") == "r800090")
        #expect(try count("SELECT COUNT(*) FROM runs WHERE job = 'local.rare'") == "5")
    }
}
