// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing

/// agentctl against a real agent, and without one.
@Suite(.serialized) struct AgentctlTests {
    @Test func statusWithoutAnAgentSaysHowToStartOneAndExitsUnavailable() throws {
        let result = try runCommand(Binaries.agentctl, ["--socket", "/tmp/agentd-nobody-here.sock", "status"])
        #expect(result.status == 5)
        #expect(result.stderr.contains("agentctl: cannot reach agentd at /tmp/agentd-nobody-here.sock (is it running? try systemctl status agentd; another agent: --socket PATH or AGENTD_SOCKET"))
    }

    @Test func agentctlReadsTheSocketFromTheEnvironment() throws {
        let sandbox = try Sandbox()
        let agent = try AgentProcess(sandbox: sandbox)
        var environment = ProcessInfo.processInfo.environment
        environment["AGENTD_SOCKET"] = sandbox.socketPath
        let result = try runCommand(Binaries.agentctl, ["status"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("config:   \(sandbox.configDirectory): 1 manifest, 0 jobs"))
        _ = agent
    }

    @Test func statusShowsVersionUptimeConfigCountsAndEmptyWork() throws {
        let sandbox = try Sandbox()
        // No Interval=: registered, never due by itself, so nothing runs or waits.
        try sandbox.write("jobs.d/a.job", "[Job]\nIdentifier=local.a\nExec=\(sandbox.pluginPath)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let result = try agent.ctl("status", "--json")
        #expect(result.status == 0)
        let status = try #require(try json(result.stdout) as? [String: Any])
        #expect(status["version"] as? String == "0.1.0")
        #expect(status["manifestCount"] as? Int == 1)
        #expect(status["jobCount"] as? Int == 1)
        #expect(status["configDirectory"] as? String == sandbox.configDirectory)
        #expect((status["running"] as? [Any])?.isEmpty == true)
        #expect((status["pending"] as? [Any])?.isEmpty == true)
        #expect(status["uptimeSeconds"] is Int)
    }

    @Test func checkPrintsEveryErrorAndExitsOne() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/bad1.job", "[Job]\nIdentifier=local.bad1\nKind=batch\nExec=\(sandbox.pluginPath)\n")
        try sandbox.write("jobs.d/bad2.job", "[Job]\nIdentifier=local.bad2\nExec=relative/path\n")
        try sandbox.write("jobs.d/good.job", sandbox.jobFile("good"))
        let result = try runCommand(Binaries.agentctl, ["check", sandbox.configDirectory])
        #expect(result.status == 1)
        #expect(result.stdout.contains("jobs.d/bad1.job:3: Kind:"))
        #expect(result.stdout.contains("jobs.d/bad2.job:3: Exec:"))
        #expect(result.stdout.contains("1 job, 2 errors"))
    }

    @Test func lowpowerSwitchesTheModeAndStatusAndResourcesShowIt() throws {
        let sandbox = try Sandbox()
        let agent = try AgentProcess(sandbox: sandbox)
        let bad = try agent.ctl("lowpower", "maybe")
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("\"maybe\" is not a mode (on, off, auto) (see 'agentctl lowpower --help')"), "\(bad.stderr)")
        let missing = try agent.ctl("lowpower")
        #expect(missing.status == 2)

        let on = try agent.ctl("lowpower", "on")
        #expect(on.status == 0, "\(on.stderr)")
        #expect(on.stdout.contains("low-power mode on until agentctl lowpower auto"), "\(on.stdout)")
        let status = try agent.ctl("status")
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("\nInputs:\n  power      "), "\(status.stdout)")
        #expect(status.stdout.contains("\n  low power  on (agentctl)\n"), "\(status.stdout)")

        let resources = try agent.ctl("resources", "--json")
        #expect(resources.status == 0, "\(resources.stderr)")
        let report = try #require(try json(resources.stdout) as? [String: Any])
        #expect(report["gpus"] is [Any])
        let inputs = try #require(report["inputs"] as? [String: Any])
        #expect(inputs["lowPower"] as? Bool == true)
        #expect(inputs["lowPowerSource"] as? String == "on (agentctl)")
        let table = try agent.ctl("resources")
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("\nInputs:\n"), "\(table.stdout)")
        #expect(table.stdout.hasPrefix("GPU ") || table.stdout.hasPrefix("No GPU found: "), "\(table.stdout)")

        let auto = try agent.ctl("lowpower", "auto")
        #expect(auto.status == 0, "\(auto.stderr)")
        #expect(auto.stdout.contains("low-power mode follows the machine"), "\(auto.stdout)")
        let after = try agent.ctl("status")
        #expect(!after.stdout.contains("(agentctl)"), "\(after.stdout)")
    }

    @Test func checkOfAGoodDirectoryExitsZero() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/good.job", sandbox.jobFile("good"))
        let result = try runCommand(Binaries.agentctl, ["check", sandbox.configDirectory])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }

    /// Others who may write to jobs.d can take a job away: check and status say so, and the
    /// sticky bit (as /tmp has) is enough.
    @Test func aJobsDirectoryOthersMayWriteToIsWarnedInCheckAndStatus() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/good.job", sandbox.jobFile("good"))
        let jobs = sandbox.configDirectory + "/jobs.d"
        #expect(chmod(jobs, 0o777) == 0)
        // Named relative to the config directory, as every diagnostic is (json.md); the advice whole.
        let warning = "jobs.d: warning: is group- and world-writable, so others can remove or rename the files in it; "
            + "run chmod go-w \(jobs)"
        let check = try runCommand(Binaries.agentctl, ["check", sandbox.configDirectory])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains(warning), "\(check.stdout)")
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try agent.ctl("status").stdout.contains(warning))
        #expect(chmod(jobs, 0o1777) == 0)
        #expect(try !agent.ctl("status").stdout.contains("jobs.d: warning"))
        let sticky = try runCommand(Binaries.agentctl, ["check", sandbox.configDirectory])
        #expect(sticky.stdout.contains("0 errors, 0 warnings"), "\(sticky.stdout)")
    }

    @Test func checkFailsAJobsDirectoryThatIsAFileOrALinkToNothing() throws {
        let sandbox = try Sandbox()
        let jobs = sandbox.configDirectory + "/jobs.d"
        try? FileManager.default.removeItem(atPath: jobs)
        try sandbox.write("jobs.d", "x\n")
        let file = try runCommand(Binaries.agentctl, ["check", sandbox.configDirectory])
        #expect(file.status == 1, "\(file.stdout)")
        #expect(file.stdout.contains("jobs.d: is not a directory (a file, or a link to nothing)"), "\(file.stdout)")
        try FileManager.default.removeItem(atPath: jobs)
        try FileManager.default.createSymbolicLink(atPath: jobs, withDestinationPath: "/nonexistent")
        let dangling = try runCommand(Binaries.agentctl, ["check", sandbox.configDirectory])
        #expect(dangling.status == 1, "\(dangling.stdout)")
    }

    @Test func aUsageErrorExitsTwoAndPointsAtHelp() throws {
        let result = try runCommand(Binaries.agentctl, ["status", "--bogus"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("see 'agentctl status --help'"))
    }

    @Test func malformedAndOversizedRequestsAreRefusedAndTheAgentKeepsAnswering() throws {
        let sandbox = try Sandbox()
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try rawExchange(sandbox.socketPath, Array("not json\n".utf8)).contains("bad-request"))
        let wrongWord = #"{"command":"request","target":"local.a","request":{"requiresNetwork":"metered"}}"# + "\n"
        let named = try rawExchange(sandbox.socketPath, Array(wrongWord.utf8))
        #expect(named.contains(#"malformed request: \"request.requiresNetwork\" does not take \"metered\""#), "\(named)")
        let huge = Array(repeating: UInt8(ascii: "x"), count: 70 * 1024) + [10]
        #expect(try rawExchange(sandbox.socketPath, huge).contains("request-too-large"))
        #expect(try agent.ctl("status").status == 0)
    }

    /// The library's BGProcessingTaskRequest for a refresh job (and the reverse) is refused, as
    /// iOS refuses a request its app has no background mode for: the handler would otherwise get
    /// a task of the other type (helper-42). agentctl sends no kind and asks for either.
    @Test func aRequestOfTheOtherKindIsNotPermitted() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/feed.job", "[Job]\nIdentifier=local.feed\nKind=refresh\nExec=\(sandbox.pluginPath)\n")
        try sandbox.write("jobs.d/export.job", "[Job]\nIdentifier=local.export\nKind=continued\nExec=\(sandbox.pluginPath)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let processing = #"{"command":"request","target":"local.feed","request":{"kind":"processing","earliestBegin":"2099-01-01T00:00:00Z"}}"#
        let refused = try rawExchange(sandbox.socketPath, Array((processing + "\n").utf8))
        #expect(refused.contains(#""code":"not-permitted""#), "\(refused)")
        #expect(refused.contains("local.feed is a refresh job (Kind=refresh): a BGProcessingTaskRequest cannot ask for it; "
            + "submit a BGAppRefreshTaskRequest, or give the job Kind=processing"), "\(refused)")
        let continued = #"{"command":"request","target":"local.export","request":{"kind":"refresh"}}"#
        let wrongVerb = try rawExchange(sandbox.socketPath, Array((continued + "\n").utf8))
        #expect(wrongVerb.contains("a BGAppRefreshTaskRequest cannot ask for it; submit a BGContinuedProcessingTaskRequest"), "\(wrongVerb)")
        let matching = #"{"command":"request","target":"local.feed","request":{"kind":"refresh","earliestBegin":"2099-01-01T00:00:00Z"}}"#
        #expect(try rawExchange(sandbox.socketPath, Array((matching + "\n").utf8)).contains(#""ok":true"#))
        #expect(try agent.ctl("request", "local.feed", "--earliest", "+1h").status == 0)
    }

    @Test func sigtermStopsTheAgentCleanlyAndRemovesTheSocket() throws {
        let sandbox = try Sandbox()
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(FileManager.default.fileExists(atPath: sandbox.socketPath))
        agent.stop()
        #expect(agent.process.terminationReason == .exit)
        #expect(agent.process.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: sandbox.socketPath))
        #expect(agent.logLines.contains { $0.hasPrefix("<6>") && $0.contains("agentd stopped") })
    }
}

/// Sends raw bytes on the control socket and returns everything the agent answers before it
/// closes or goes quiet.
private func rawExchange(_ path: String, _ bytes: [UInt8]) throws -> String {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
        for (index, byte) in path.utf8.enumerated() where index < buffer.count - 1 { buffer[index] = byte }
    }
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { break }
        answer += buffer[0..<n]
        if answer.last == 10 { break }
    }
    return String(decoding: answer, as: UTF8.self)
}
