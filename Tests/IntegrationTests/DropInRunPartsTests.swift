// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Drop-in scripts behave like run-parts (DESIGN §3, issue 12 item 5), and job files with
/// errors stay visible and recover by themselves (issue 13): a real agentd on a sandbox.
@Suite(.serialized) struct DropInRunPartsTests {
    /// A sandbox whose directories every user may traverse, so a script may run as nobody.
    private func openSandbox() throws -> Sandbox {
        let sandbox = try Sandbox()
        for directory in [sandbox.root, sandbox.configDirectory, sandbox.jobsDirectory] {
            chmod(directory, 0o755)
        }
        return sandbox
    }

    /// Writes an executable drop-in script `jobs.d/NAME`.
    private func dropIn(_ sandbox: Sandbox, _ name: String, _ body: String) throws -> String {
        let path = sandbox.jobsDirectory + "/" + name
        try ("#!/bin/sh\n" + body).write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    /// Launches `id` now and returns its history record once it ended.
    private func runOnce(_ agent: AgentProcess, _ id: String) throws -> [String: Any] {
        let launched = try agent.ctl("simulate", "launch", id)
        #expect(launched.status == 0, "\(launched.stderr)")
        try agent.waitForLog("of \(id) ended:", timeout: 60)
        let history = try agent.ctl("history", id, "--json")
        return (try json(history.stdout) as? [[String: Any]])?.first ?? [:]
    }

    @Test func anExecutableBackupDisabledNeverRunsAndItsWarningNamesTheRule() throws {
        let sandbox = try openSandbox()
        let marker = sandbox.root + "/disabled-ran"
        for name in ["backup.disabled", "x.bak", "x.orig", "x.save", "x.sh"] {
            _ = try dropIn(sandbox, name, "touch \(marker)\n")
        }
        // Due at once (Interval=1d, never run): it shows the scheduler did run what it may.
        _ = try dropIn(sandbox, "witness", "exit 0\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let warning = try agent.waitForLog("jobs.d/backup.disabled: warning: ignored")
        #expect(warning.contains("^[A-Za-z0-9_-]+$"))
        #expect(warning.contains("run-parts"))
        try agent.waitForLog("of local.witness ended: success", timeout: 60)
        let jobs = try listedJobs(agent)
        #expect(Set(jobs.keys) == ["local.witness"])
        #expect(try agent.ctl("simulate", "launch", "local.backup.disabled").status != 0)
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    /// `sed -i` and `perl -pi` write an edited script to a temporary copy beside it, with its
    /// mode, and rename it over the script: the copy must never be a job of its own (it was
    /// registered and started under the copy's name, and warned about when not executable yet).
    @Test func editingAScriptInPlaceWithSedOrPerlStartsNothingElse() throws {
        let sandbox = try openSandbox()
        let script = try dropIn(sandbox, "greet", "# agentd: Interval=1h\necho hello\n")
        let definition = sandbox.jobsDirectory + "/def.job"
        try sandbox.write("jobs.d/def.job", "[Job]\nIdentifier=local.def\nExec=/bin/true\nInterval=1h\n")
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("of local.greet ended: success")
        let mark = agent.logLines.count
        for round in 1...10 {
            for command in [["/bin/sed", "-i", "s/hello.*/hello \(round)/", script],
                            ["/usr/bin/perl", "-pi", "-e", "s/hello.*/hello perl \(round)/", script],
                            ["/bin/sed", "-i", "s/Interval=.*/Interval=\(round)h/", definition]] {
                let edited = try runCommand(command[0], Array(command.dropFirst()))
                #expect(edited.status == 0, "\(command): \(edited.stderr)")
            }
        }
        // A script dropped in after the edits is read once it has settled: by then any copy
        // would have been read too.
        _ = try dropIn(sandbox, "witness", "exit 0\n")
        try agent.waitForLog("of local.witness ended: success", after: mark)
        let lines = agent.logLines[mark...]
        let strays = lines.filter { line in
            (line.contains("registered ") || line.contains(" started ") || line.contains("warning"))
                && !line.contains("local.witness")
        }
        #expect(strays.isEmpty, "\(strays)")
        #expect(lines.contains { $0.contains("updated local.def from jobs.d/def.job") })
        let listed = Set(try listedJobs(agent).keys)
        #expect(listed == ["local.greet", "local.def", "local.witness"], "\(lines.joined(separator: "\n"))")
        #expect(try String(contentsOfFile: script, encoding: .utf8).contains("hello perl 10"))
    }

    /// A script dropped in waits to settle, but a request naming it right away finds it: a
    /// package's postinst or a deploy script may drop a script and run it at once.
    @Test func aScriptDroppedInCanBeRunAtOnceByName() throws {
        let sandbox = try openSandbox()
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("ready:")
        let staged = sandbox.root + "/fresh"
        try "#!/bin/sh\n# agentd: Interval=none\necho fresh ran\n".write(toFile: staged, atomically: false, encoding: .utf8)
        chmod(staged, 0o755)
        #expect(rename(staged, sandbox.jobsDirectory + "/fresh") == 0)
        let ran = try agent.ctl("run", "local.fresh")
        #expect(ran.status == 0, "\(ran.stdout)\(ran.stderr)")
        try agent.waitForLog("of local.fresh ended: success")
    }

    @Test(.enabled(if: getuid() == 0, "needs root: the drop-ins are owned by root and by nobody"))
    func aRootOwnedDropInRunsAsRootAndAnotherUsersAsThatUser() throws {
        let sandbox = try openSandbox()
        _ = try dropIn(sandbox, "asroot", "# agentd: Interval=none\nid -u\n")
        let mine = try dropIn(sandbox, "asnobody", "# agentd: Interval=none\nid -u\n")
        #expect(chown(mine, 65534, 65534) == 0)
        let agent = try AgentProcess(sandbox: sandbox)
        let root = try runOnce(agent, "local.asroot")
        #expect(root["stopReason"] as? String == "success")
        #expect((root["logTail"] as? [String])?.contains("0") == true, "\(root)")
        let nobody = try runOnce(agent, "local.asnobody")
        #expect(nobody["stopReason"] as? String == "success")
        #expect((nobody["logTail"] as? [String])?.contains("65534") == true, "\(nobody)")
    }

    @Test(.enabled(if: getuid() == 0, "needs root: the drop-in is chowned to nobody"))
    func aDropInOwnedByAUserCannotNameAnotherUser() throws {
        let sandbox = try openSandbox()
        let path = try dropIn(sandbox, "climb", "# agentd: Interval=none User=root\nid -u\n")
        #expect(chown(path, 65534, 65534) == 0)
        let agent = try AgentProcess(sandbox: sandbox)
        let error = try agent.waitForLog("jobs.d/climb:2: User: \"root\" cannot be used")
        #expect(error.contains("runs only as its owner"))
        #expect(try listedJobs(agent)["local.climb"]?["state"] as? String == "error (jobs.d/climb:2)")
    }

    /// The agent reads EnvironmentFile= as root: a drop-in owned by another user gets only what
    /// that user could read itself.
    @Test(.enabled(if: getuid() == 0, "needs root: a drop-in owned by another user"))
    func aDropInOwnedByAUserCannotReadAnEnvironmentFileItsOwnerCannot() throws {
        let sandbox = try openSandbox()
        let secret = sandbox.root + "/secret.env"
        try "TOKEN=hunter2\n".write(toFile: secret, atomically: false, encoding: .utf8)
        chmod(secret, 0o600)
        let path = try dropIn(sandbox, "peek", "# agentd: Interval=none EnvironmentFile=\(secret)\necho token=$TOKEN\n")
        #expect(chown(path, 65534, 65534) == 0)
        let agent = try AgentProcess(sandbox: sandbox)
        let run = try runOnce(agent, "local.peek")
        #expect((run["stopReason"] as? String)?.hasPrefix("spawn-failed(EnvironmentFile=\(secret): not readable by the script's owner") == true, "\(run)")
        #expect(!((run["logTail"] as? [String]) ?? []).contains("token=hunter2"))
    }

    /// A file everyone may read is still out of the owner's reach in a directory closed to it.
    @Test(.enabled(if: getuid() == 0, "needs root: a drop-in owned by another user"))
    func aDropInOwnedByAUserCannotReadAnEnvironmentFileInADirectoryClosedToIt() throws {
        let sandbox = try openSandbox()
        for (name, mode) in [("closed", mode_t(0o700)), ("open", mode_t(0o755))] {
            let directory = sandbox.root + "/" + name
            #expect(mkdir(directory, mode) == 0 && chmod(directory, mode) == 0)
            try "TOKEN=\(name)-token\n".write(toFile: directory + "/x.env", atomically: false, encoding: .utf8)
            #expect(chmod(directory + "/x.env", 0o644) == 0)
            let path = try dropIn(sandbox, name, "# agentd: Interval=none EnvironmentFile=\(directory)/x.env\necho token=$TOKEN\n")
            #expect(chown(path, 65534, 65534) == 0)
        }
        let agent = try AgentProcess(sandbox: sandbox)
        let closed = try runOnce(agent, "local.closed")
        #expect((closed["stopReason"] as? String)?.hasPrefix("spawn-failed(EnvironmentFile=\(sandbox.root)/closed/x.env: "
            + "\(sandbox.root)/closed on the way to it is closed to the script's owner (mode 0700) (uid 65534)") == true, "\(closed)")
        #expect(!((closed["logTail"] as? [String]) ?? []).contains("token=closed-token"))
        let open = try runOnce(agent, "local.open")
        #expect((open["logTail"] as? [String])?.contains("token=open-token") == true, "\(open)")
    }

    @Test func aDropInHasNoDeadlineByDefaultAsRunPartsImposesNone() throws {
        let sandbox = try openSandbox()
        _ = try dropIn(sandbox, "slow", "# agentd: Interval=none\necho deadline=${AGENTD_DEADLINE-none}\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let run = try runOnce(agent, "local.slow")
        let line = (run["logTail"] as? [String])?.first { $0.hasPrefix("deadline=") } ?? ""
        #expect(line == "deadline=none", "\(run)")
    }

    /// run-parts runs programs of any size; only a drop-in's first lines are its header. A
    /// 20 MB program was refused as "file too large (over 16777216 bytes)".
    @Test func aDropInProgramOfTwentyMegabytesIsAJobLikeAnyOther() throws {
        let sandbox = try openSandbox()
        let path = try dropIn(sandbox, "large", "# agentd: Interval=none\necho ran\nexit 0\n")
        let file = try #require(FileHandle(forWritingAtPath: path))
        try file.seekToEnd()
        for _ in 0..<20 { file.write(Data(repeating: 0x23, count: 1 << 20)) }  // 20 MiB the shell never reads
        try file.close()
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try listedJobs(agent)["local.large"] != nil, "\(agent.logLines.suffix(5))")
        let run = try runOnce(agent, "local.large")
        #expect(run["stopReason"] as? String == "success", "\(run)")
        #expect((run["logTail"] as? [String])?.contains("ran") == true, "\(run)")
    }

    @Test func aJobFileWithErrorsIsListedWithWhereItsFirstErrorIs() throws {
        let sandbox = try openSandbox()
        try sandbox.write("jobs.d/broken.job", "[Job]\nIdentifier=local.broken\nKind=processing\nExec=\(sandbox.pluginPath)\nInterval=1x\n")
        try sandbox.write("jobs.d/garbled.job", "not a unit file\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let list = try agent.ctl("list", "--json")
        let rows = (try json(list.stdout) as? [[String: Any]]) ?? []
        let broken = rows.first { $0["source"] as? String == "jobs.d/broken.job" }
        #expect(broken?["identifier"] as? String == "local.broken")
        #expect(broken?["state"] as? String == "error (jobs.d/broken.job:5)")
        let garbled = rows.first { $0["source"] as? String == "jobs.d/garbled.job" }
        #expect(garbled?["identifier"] as? String == "-")
        #expect((garbled?["state"] as? String)?.hasPrefix("error (jobs.d/garbled.job") == true)

        let launch = try runCommand(Binaries.agentctl, ["--socket", sandbox.socketPath, "simulate", "launch", "local.broken"])
        #expect(launch.status != 0)
        #expect(launch.stderr.contains("jobs.d/broken.job has errors (jobs.d/broken.job:5: Interval:"), "\(launch.stderr)")
        #expect(!launch.stderr.contains("no job"))
        // explain answers "why does it not run?" as for a job not permitted (agentctl.md).
        let explained = try runCommand(Binaries.agentctl, ["--socket", sandbox.socketPath, "explain", "local.broken"])
        #expect(explained.status == 0, "\(explained.stderr)")
        #expect(explained.stdout.contains("now: not registered: jobs.d/broken.job has errors (jobs.d/broken.job:5: Interval:"),
                "\(explained.stdout)")
    }

    @Test func chmodPlusXOnThePluginNamedInAnErrorRegistersTheJobWithoutSIGHUP() throws {
        let sandbox = try openSandbox()
        let plugin = sandbox.root + "/plugins/late"
        try FileManager.default.createDirectory(atPath: sandbox.root + "/plugins", withIntermediateDirectories: true)
        try "#!/bin/sh\nexit 0\n".write(toFile: plugin, atomically: false, encoding: .utf8)
        chmod(plugin, 0o644)
        try sandbox.write("jobs.d/late.job", "[Job]\nIdentifier=local.late\nExec=\(plugin)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let error = try agent.waitForLog("jobs.d/late.job:3: Exec:")
        #expect(error.contains("run chmod +x"))
        let mark = agent.logLines.count
        chmod(plugin, 0o755)
        try agent.waitForLog("registered local.late", after: mark, timeout: 10)
        #expect(try listedJobs(agent)["local.late"]?["state"] as? String == "registered")
    }

    @Test func aPluginInstalledAfterItsJobRegistersTheJobWithoutSIGHUP() throws {
        let sandbox = try openSandbox()
        let plugin = sandbox.root + "/later/plugin"
        try sandbox.write("jobs.d/later.job", "[Job]\nIdentifier=local.later\nExec=\(plugin)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        try agent.waitForLog("jobs.d/later.job:3: Exec:")
        let mark = agent.logLines.count
        // Its directory does not exist yet either: the nearest existing one is watched.
        try FileManager.default.createDirectory(atPath: sandbox.root + "/later", withIntermediateDirectories: true)
        let temp = sandbox.root + "/later/.plugin.tmp"
        try "#!/bin/sh\nexit 0\n".write(toFile: temp, atomically: false, encoding: .utf8)
        chmod(temp, 0o755)
        #expect(rename(temp, plugin) == 0)
        try agent.waitForLog("registered local.later", after: mark, timeout: 10)
    }

    @Test func statusAndCheckCountTheKeptVersionNoteAlike() throws {
        let sandbox = try openSandbox()
        try sandbox.write("jobs.d/report.job", sandbox.jobFile("report"))
        let agent = try AgentProcess(sandbox: sandbox)
        let mark = agent.logLines.count
        try sandbox.write("jobs.d/report.job", "[Job]\nIdentifier=local.report\nKind=processing\nExec=\(sandbox.pluginPath)\nInterval=1x\n")
        try agent.waitForLog("jobs.d/report.job:5", after: mark)
        let status = try agent.ctl("status")
        #expect(status.stdout.contains("1 error, 0 warnings"), "\(status.stdout)")
        #expect(status.stdout.contains("note: the last good version"), "\(status.stdout)")
        let check = try runCommand(Binaries.agentctl, ["check", sandbox.configDirectory])
        #expect(check.stdout.contains("1 error, 0 warnings"), "\(check.stdout)")
    }
}
