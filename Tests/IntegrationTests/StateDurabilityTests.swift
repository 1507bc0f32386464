// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// DESIGN §10: nothing acknowledged is lost, a state that cannot be written never stalls or
/// crashes the agent, and a copy of `state.db` after a clean stop is a backup.
@Suite(.serialized) struct StateDurabilityTests {
    /// A processing job and a continued job whose plugin exits at once.
    private func sandboxWithJobs() throws -> Sandbox {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/work.job", "[Job]\nIdentifier=local.work\nKind=processing\nExec=\(sandbox.pluginPath)\n")
        try sandbox.write("jobs.d/export.job", "[Job]\nIdentifier=local.export\nKind=continued\nExec=\(sandbox.pluginPath)\n")
        return sandbox
    }

    /// Launches `local.work` and waits until that run ended; returns its run id.
    @discardableResult
    private func runWork(_ agent: AgentProcess) throws -> String {
        let result = try agent.ctl("simulate", "launch", "local.work")
        #expect(result.status == 0, "simulate launch failed: \(result.stderr)")
        let id = result.stdout.split(separator: " ").dropFirst(2).first.map(String.init) ?? "?"
        try agent.waitForLog("run \(id) of local.work ended: success")
        return id
    }

    private func history(_ agent: AgentProcess) throws -> [[String: Any]] {
        let result = try agent.ctl("history", "--json", "--limit", "100")
        #expect(result.status == 0, "history failed: \(result.stderr)")
        return try json(result.stdout) as? [[String: Any]] ?? []
    }

    private func stateError(_ agent: AgentProcess) throws -> String? {
        let status = try json(try agent.ctl("status", "--json").stdout) as? [String: Any]
        return status?["stateError"] as? String
    }

    // MARK: disk full

    @Test(.enabled(if: geteuid() == 0, "mounting a tmpfs for the full state directory needs root"))
    func aFullStateDirectoryRefusesSubmissionsAndWritesTheRunsThatEndedOnceSpaceReturns() throws {
        let sandbox = try sandboxWithJobs()
        let state = sandbox.stateDirectory
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let mounted = try runCommand("/bin/mount", ["-t", "tmpfs", "-o", "size=2m,mode=0755", "tmpfs", state])
        guard mounted.status == 0 else {
            try Test.cancel("cannot mount a tmpfs at \(state): \(mounted.stderr)")
        }
        // Unmounted before the sandbox is removed.
        defer { _ = try? runCommand("/bin/umount", ["-l", state]); withExtendedLifetime(sandbox) {} }

        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try agent.ctl("submit", "local.export").status == 0)
        try agent.waitForLog("run r000001 of local.export ended: success")

        // Fill the file system: dd stops at ENOSPC.
        let filler = state + "/filler"
        _ = try runCommand("/bin/dd", ["if=/dev/zero", "of=" + filler, "bs=64k"])
        let refused = try agent.ctl("submit", "local.export")
        #expect(refused.status == 5)
        #expect(refused.stderr.contains("state directory full: \(state)"), "stderr: \(refused.stderr)")
        #expect(refused.stderr.contains("df -h \(state)"))
        // status says so at once, not only after a write failed.
        #expect(try stateError(agent)?.contains("state directory full: \(state)") == true)

        // Runs that end meanwhile are kept in memory.
        var ended: [String] = []
        for _ in 0..<5 { ended.append(try runWork(agent)) }
        try agent.waitForLog("state database: state directory full: \(state)")
        #expect(try stateError(agent)?.contains("state directory full") == true)
        #expect(try agent.ctl("trigger", "local.work").status == 5)

        // Space returns: the retry timer writes everything that waited.
        let mark = agent.logLines.count
        try FileManager.default.removeItem(atPath: filler)
        try agent.waitForLog("state database: writable again", after: mark, timeout: 60)
        #expect(try stateError(agent) == nil)
        let written = Set(try history(agent).compactMap { $0["runID"] as? String })
        #expect(written.isSuperset(of: ["r000001"] + ended), "history: \(written.sorted())")
        #expect(try agent.ctl("submit", "local.export").status == 0)
        try agent.waitForLog("of local.export ended: success", after: mark)

        // And nothing is lost across a restart.
        agent.stop()
        let restarted = try AgentProcess(sandbox: sandbox)
        let kept = try history(restarted)
        #expect(kept.count == 7, "history after restart: \(kept.compactMap { $0["runID"] as? String })")
        #expect(kept.allSatisfy { $0["stopReason"] as? String == "success" })
    }

    // MARK: a lock held by another process

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3 to hold a lock on state.db"))
    func aLockHeldByAnotherProcessNeitherStallsStatusNorLosesWrites() throws {
        let sandbox = try sandboxWithJobs()
        do {
            let first = try AgentProcess(sandbox: sandbox)
            try runWork(first)
            // A request the next agent must not overwrite when it opens the database late.
            #expect(try first.ctl("disable", "local.export").status == 0)
            first.stop()
        }
        let locker = try DatabaseLocker(path: sandbox.stateDirectory + "/state.db")
        defer { locker.release() }

        let agent = try AgentProcess(sandbox: sandbox)
        // status answers at once, every time, and says why the state is unusable.
        for _ in 0..<5 {
            let started = Date()
            let problem = try stateError(agent)
            let took = Date().timeIntervalSince(started)
            #expect(took < 1, "status took \(took) s while another process held the lock")
            #expect(problem?.contains("locked") == true, "stateError: \(problem ?? "nil")")
        }
        let refused = try agent.ctl("submit", "local.export")
        #expect(refused.status == 5)
        #expect(refused.stderr.contains("state directory not writable: "), "stderr: \(refused.stderr)")
        let meanwhile = try runWork(agent)

        let mark = agent.logLines.count
        locker.release()
        try agent.waitForLog("state database: writable again", after: mark, timeout: 60)
        let runs = Set(try history(agent).compactMap { $0["runID"] as? String })
        #expect(runs == ["r000001", meanwhile], "history: \(runs.sorted())")
        // What the earlier agent was asked for still holds.
        let stillDisabled = try agent.ctl("submit", "local.export")
        #expect(stillDisabled.status == 5)
        #expect(stillDisabled.stderr.contains("disabled"), "stderr: \(stillDisabled.stderr)")
        #expect(try agent.ctl("enable", "local.export").status == 0)
        #expect(try agent.ctl("submit", "local.export").status == 0)
    }

    // MARK: checkpoints

    @Test func aCleanStopCheckpointsSoACopyOfStateDbHoldsEveryRun() throws {
        let sandbox = try sandboxWithJobs()
        let agent = try AgentProcess(sandbox: sandbox)
        for _ in 0..<3 { try runWork(agent) }
        agent.stop()
        #expect(agent.process.terminationStatus == 0)

        let wal = sandbox.stateDirectory + "/state.db-wal"
        let walSize = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
        #expect(walSize == 0, "state.db-wal holds \(walSize) bytes after a clean stop")
        // The database file alone, copied elsewhere, is a complete backup.
        let copy = sandbox.root + "/backup.db"
        try FileManager.default.copyItem(atPath: sandbox.stateDirectory + "/state.db", toPath: copy)
        let count = try runCommand("/usr/bin/python3", ["-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM runs').fetchone()[0])", copy])
        #expect(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "3", "runs in the copy: \(count.stdout) \(count.stderr)")
    }

    // MARK: a damaged state.db

    /// A damaged page in `runs` was taken as any other failed write: a submission was answered
    /// "started run r000001" while its record was given up, and status said nothing. Now the
    /// state counts as not writable, status says it is damaged and what to do, submissions are
    /// refused with the same words, and doing what they say gives a working agent again.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs python3 to find the runs table's page"))
    func aDamagedStateDbRefusesSubmissionsAndSaysHowToStartANewOne() throws {
        let sandbox = try sandboxWithJobs()
        let first = try AgentProcess(sandbox: sandbox)
        for _ in 0..<3 { try runWork(first) }
        first.stop()
        #expect(first.process.terminationStatus == 0)

        // The page that roots the runs table (checkpointed into state.db at the clean stop) zeroed.
        let database = sandbox.stateDirectory + "/state.db"
        let found = try runCommand("/usr/bin/python3", ["-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute(\"SELECT rootpage FROM sqlite_master WHERE name='runs'\").fetchone()[0], c.execute('PRAGMA page_size').fetchone()[0])", database])
        let numbers = found.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(numbers.count == 2, "sqlite_master: \(found.stdout) \(found.stderr)")
        guard numbers.count == 2 else { return }
        let file = try #require(FileHandle(forWritingAtPath: database))
        try file.seek(toOffset: UInt64((numbers[0] - 1) * numbers[1]))
        file.write(Data(count: numbers[1]))
        try file.close()

        let agent = try AgentProcess(sandbox: sandbox)
        let problem = try stateError(agent) ?? ""
        #expect(problem.hasPrefix("state database damaged: \(database) ("), "stateError: \(problem)")
        #expect(problem.contains("stop agentd, move state.db, state.db-wal and state.db-shm aside"))
        let refused = try agent.ctl("submit", "local.export")
        #expect(refused.status == 5, "a submission was taken: \(refused.stdout)")
        #expect(refused.stderr.contains("state database damaged"), "\(refused.stderr)")
        let unread = try agent.ctl("history")
        #expect(unread.status == 5 && unread.stderr.contains("reading history failed: state database damaged"),
                "\(unread.status) \(unread.stderr)")
        agent.stop()

        // What the message says: aside, then a new state database.
        let aside = sandbox.root + "/damaged"
        try FileManager.default.createDirectory(atPath: aside, withIntermediateDirectories: true)
        for name in ["state.db", "state.db-wal", "state.db-shm"]
        where FileManager.default.fileExists(atPath: sandbox.stateDirectory + "/" + name) {
            try FileManager.default.moveItem(atPath: sandbox.stateDirectory + "/" + name, toPath: aside + "/" + name)
        }
        let again = try AgentProcess(sandbox: sandbox)
        defer { again.stop() }
        #expect(try stateError(again) == nil)
        let submitted = try again.ctl("submit", "local.export", "--wait")
        #expect(submitted.status == 0, "\(submitted.stdout) \(submitted.stderr)")
        #expect(try history(again).count == 1)
    }

    // MARK: a deleted WAL

    /// Issue 28 item 12: `state.db-wal` deleted under a live agent went unnoticed, and the next
    /// crash lost every acknowledged request it held. Now the agent notices at once (even while
    /// idle), saves what the open WAL holds into state.db, and opens a new one on disk.
    @Test func aDeletedWALIsNoticedSavedAndReplacedSoACrashAfterItLosesNoRequest() throws {
        let sandbox = try Sandbox()
        for name in ["feed", "news"] {
            try sandbox.write("jobs.d/\(name).job", "[Job]\nIdentifier=local.\(name)\nKind=refresh\nExec=\(sandbox.pluginPath)\n")
        }
        let agent = try AgentProcess(sandbox: sandbox)
        let asked = try agent.ctl("request", "local.feed", "--earliest", "+2h")
        #expect(asked.status == 0, "\(asked.stderr)")
        // Acknowledged: in the WAL (the idle checkpoint is a minute away), not in state.db yet.
        let wal = sandbox.stateDirectory + "/state.db-wal"
        #expect(((try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0) > 0)

        let mark = agent.logLines.count
        try FileManager.default.removeItem(atPath: wal)
        try agent.waitForLog("state.db-wal was deleted at", after: mark)
        #expect(FileManager.default.fileExists(atPath: wal), "a new WAL is on disk")
        #expect(try stateError(agent)?.contains("\(wal) was deleted at") == true)
        // Writes go on into the new WAL.
        #expect(try agent.ctl("request", "local.news", "--earliest", "+3h").status == 0)

        kill(agent.process.processIdentifier, SIGKILL)
        agent.process.waitUntilExit()
        let restarted = try AgentProcess(sandbox: sandbox)
        let pending = try json(try restarted.ctl("pending", "--json").stdout) as? [[String: Any]] ?? []
        let requested = Set(pending.filter { $0["request"] != nil }.compactMap { $0["identifier"] as? String })
        #expect(requested == ["local.feed", "local.news"], "pending after the crash: \(pending)")
    }

    /// `state.db` itself deleted under a live agent went unnoticed: the agent went on writing into
    /// the nameless file, and its next start found only a WAL: every acknowledged request gone.
    /// Now it writes the open database as a new state.db at once, and a request after it is kept too.
    @Test func aDeletedStateDbIsWrittenAgainFromTheOpenDatabaseSoNothingIsLost() throws {
        let sandbox = try Sandbox()
        for name in ["feed", "news", "mail"] {
            try sandbox.write("jobs.d/\(name).job", "[Job]\nIdentifier=local.\(name)\nKind=refresh\nExec=\(sandbox.pluginPath)\n")
        }
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try agent.ctl("request", "local.feed", "--earliest", "+2h").status == 0)
        #expect(try agent.ctl("request", "local.news", "--earliest", "+3h").status == 0)
        let database = sandbox.stateDirectory + "/state.db"
        let mark = agent.logLines.count
        try FileManager.default.removeItem(atPath: database)
        try agent.waitForLog("state.db was removed at", after: mark)
        #expect(FileManager.default.fileExists(atPath: database), "a new state.db is on disk")
        #expect(try stateError(agent)?.contains("\(database) was removed at") == true)
        #expect(try agent.ctl("request", "local.mail", "--earliest", "+4h").status == 0)

        // A clean stop, then a crash-free start: both kept, and the one after the removal.
        agent.stop()
        let restarted = try AgentProcess(sandbox: sandbox)
        let pending = try json(try restarted.ctl("pending", "--json").stdout) as? [[String: Any]] ?? []
        let requested = Set(pending.filter { $0["request"] != nil }.compactMap { $0["identifier"] as? String })
        #expect(requested == ["local.feed", "local.news", "local.mail"], "pending after the restart: \(pending)")
    }

    @Test(.enabled(if: geteuid() == 0, "runs as nobody need a root agent"))
    func aStateDirectoryRemovedUnderTheAgentIsMadeAgainSoRunsAsOtherUsersStillStart() throws {
        let sandbox = try sandboxWithJobs()
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try agent.ctl("submit", "local.export").status == 0)
        try agent.waitForLog("run r000001 of local.export ended: success")
        let mark = agent.logLines.count
        try FileManager.default.removeItem(atPath: sandbox.stateDirectory)
        #expect(try agent.ctl("submit", "local.export").status == 0)
        try agent.waitForLog("of local.export ended: ", after: mark)
        let ended = agent.logLines.dropFirst(mark).first { $0.contains("of local.export ended: ") } ?? ""
        #expect(ended.contains("ended: success"), "\(ended)")
        try agent.waitForLog("agentd wrote what it holds", after: mark)
        let error = try stateError(agent) ?? ""
        #expect(!error.contains("cannot be written again"), "a failed attempt before the rewrite is over: \(error)")
    }

    // MARK: an immutable -shm

    @Test func anImmutableShmFileNeitherCrashesTheAgentNorStopsItsWrites() throws {
        let sandbox = try sandboxWithJobs()
        let agent = try AgentProcess(sandbox: sandbox)
        try runWork(agent)
        // What a hostile or careless administrator might do to SQLite's shared-memory index.
        let shm = sandbox.stateDirectory + "/state.db-shm"
        if !FileManager.default.fileExists(atPath: shm) {
            _ = FileManager.default.createFile(atPath: shm, contents: nil)
        }
        let chattr = try runCommand("/usr/bin/chattr", ["+i", shm])
        guard chattr.status == 0 else {
            try Test.cancel("chattr +i is not supported on \(sandbox.root)'s file system: \(chattr.stderr)")
        }
        // Mutable again before the sandbox is removed.
        defer { _ = try? runCommand("/usr/bin/chattr", ["-i", shm]); withExtendedLifetime(sandbox) {} }

        for _ in 0..<3 { try runWork(agent) }
        #expect(agent.process.isRunning, "agentd died: \(agent.logLines.suffix(5))")
        #expect(try history(agent).count == 4)
        // And it starts again with the immutable file in place.
        agent.stop()
        #expect(agent.process.terminationStatus == 0)
        let restarted = try AgentProcess(sandbox: sandbox)
        try runWork(restarted)
        #expect(try history(restarted).count == 5)
    }
}

/// Another process holding SQLite's write lock on a database (python3's sqlite3 module,
/// `BEGIN IMMEDIATE`) until `release`.
final class DatabaseLocker {
    private let process = Process()
    private let input = Pipe()

    init(path: String) throws {
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute("BEGIN IMMEDIATE")
            print("locked", flush=True)
            sys.stdin.readline()
            db.execute("ROLLBACK")
            """
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // Blocks until the lock is held (or the script failed and closed its output).
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard line.hasPrefix("locked") else {
            Issue.record("python3 could not lock \(path)")
            throw POSIXError(.EIO)
        }
    }

    func release() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.write(contentsOf: Data("\n".utf8))
        process.waitUntilExit()
    }

    deinit { release() }
}
