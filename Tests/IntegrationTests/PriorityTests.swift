// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// DESIGN §3 (issue: CPU/IO priority, 5 of 13 Debian timers set it): `Nice=`,
/// `IOSchedulingClass=`/`IOSchedulingPriority=` are set in the child before exec and seen by the
/// plugin itself.
@Suite struct PriorityTests {
    /// Runs a plugin that reports its own nice value (/proc/self/stat field 19) and `ionice`.
    private func report(_ settings: String, agentWrapper: [String] = []) throws -> (nice: String?, ionice: String?) {
        let sandbox = try Sandbox()
        let plugin = try sandbox.script("prio", """
            set -- $(cut -d' ' -f19 /proc/$$/stat)
            echo "nice=$1"
            echo "ionice=$(ionice -p $$)"
            """)
        try sandbox.write("jobs.d/prio.job", "[Job]\nIdentifier=local.prio\nExec=\(plugin)\n\(settings)")
        let agent = try AgentProcess(sandbox: sandbox, wrapper: agentWrapper)
        #expect(try agent.ctl("simulate", "launch", "local.prio").status == 0)
        try agent.waitForLog("of local.prio ended: success")
        func value(_ key: String) -> String? {
            agent.logLines.compactMap { line -> String? in
                guard let range = line.range(of: "] \(key)=") else { return nil }
                return String(line[range.upperBound...])
            }.first
        }
        return (value("nice"), value("ionice"))
    }

    @Test func niceAndIdleIOClassAreSeenByThePlugin() throws {
        let seen = try report("Nice=10\nIOSchedulingClass=idle\n")
        #expect(seen.nice == "10")
        #expect(seen.ionice == "idle")
    }

    @Test func bestEffortLevelAndANegativeNiceAsRoot() throws {
        try #require(geteuid() == 0, "a negative Nice= needs root")
        let seen = try report("Nice=-5\nIOSchedulingClass=best-effort\nIOSchedulingPriority=7\n")
        #expect(seen.nice == "-5")
        #expect(seen.ionice == "best-effort: prio 7")
    }

    @Test func withoutPriorityKeysThePluginKeepsTheDefaults() throws {
        let seen = try report("")
        #expect(seen.nice == "0")
    }

    /// An agent given a higher priority of its own (a drop-in's `Nice=-5`) does not hand it on:
    /// a plugin without `Nice=` runs at 0.
    @Test func aPluginDoesNotInheritTheAgentsOwnNegativeNice() throws {
        try #require(geteuid() == 0, "a negative nice needs root")
        let seen = try report("", agentWrapper: ["/usr/bin/nice", "-n", "-5"])
        #expect(seen.nice == "0")
    }
}

/// agentd.service runs the agent with UMask=0027; plugins get cron's 022 back before exec.
@Suite struct PluginUmaskTests {
    @Test func aPluginRunsWithUmask022WhateverTheAgentsIs() throws {
        let sandbox = try Sandbox()
        let plugin = try sandbox.script("mask", "echo \"umask=$(umask)\"\n")
        try sandbox.write("jobs.d/mask.job", "[Job]\nIdentifier=local.mask\nExec=\(plugin)\n")
        let agent = try AgentProcess(sandbox: sandbox, wrapper: ["/bin/sh", "-c", "umask 077; exec \"$0\" \"$@\""])
        #expect(try agent.ctl("simulate", "launch", "local.mask").status == 0)
        try agent.waitForLog("of local.mask ended: success")
        #expect(agent.logLines.contains { $0.hasSuffix("] umask=0022") }, "\(agent.logLines.suffix(5))")
    }
}

/// agentd raises its own open-file soft limit for its many runs; a plugin gets back the soft
/// limit the agent was started with (under systemd 1024, as every service has), hard unchanged.
@Suite struct PluginOpenFileLimitTests {
    @Test func aPluginGetsTheSoftOpenFileLimitTheAgentWasStartedWith() throws {
        let sandbox = try Sandbox()
        let plugin = try sandbox.script("files", """
            echo "files=$(ulimit -Sn) $(ulimit -Hn)"
            """)
        try sandbox.write("jobs.d/files.job", "[Job]\nIdentifier=local.files\nExec=\(plugin)\n")
        let agent = try AgentProcess(sandbox: sandbox, wrapper: ["/usr/bin/prlimit", "--nofile=1000:4096"])
        #expect(try agent.ctl("simulate", "launch", "local.files").status == 0)
        try agent.waitForLog("of local.files ended: success")
        let seen = agent.logLines.first { $0.contains("] files=") }
        #expect(seen?.hasSuffix("] files=1000 4096") == true, "\(seen ?? "no line")")
    }
}
