// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Run records keep what the run said (issue 13), and an `OnSuccess=` run gets the previous run's
/// `RESULT=` and id (issue 15 item 1), with a real agentd and real plugins.
@Suite(.serialized) struct RunRecordTests {
    private func runs(_ agent: AgentProcess, _ identifier: String) throws -> [[String: Any]] {
        try json(try agent.ctl("history", identifier, "--json").stdout) as? [[String: Any]] ?? []
    }

    @Test func historyKeepsTheStatusResultCountsAndCheckpointsOfEachRun() throws {
        let sandbox = try Sandbox()
        // A run that says everything: two STATUS= (the last is kept), two results and an oversized
        // one (rejected: the last good one is kept), a 5000-byte log line (cut), an invalid
        // PROGRESS=, and a checkpoint one higher than the one it was given.
        let plugin = try sandbox.script("said", """
            echo "STATUS=starting"
            echo "RESULT=first"
            echo "RESULT=/srv/out/nightly 1.tar"
            printf 'RESULT='; head -c 5000 /dev/zero | tr '\\000' y; echo
            head -c 5000 /dev/zero | tr '\\000' x; echo
            echo "PROGRESS=7/3"
            echo "CHECKPOINT=batch-${AGENTD_CHECKPOINT:-0}+"
            echo "STATUS=indexed 3 of 3"
            exit 0

            """)
        try sandbox.write("jobs.d/said.job", "[Job]\nIdentifier=local.said\nExec=\(plugin)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try agent.ctl("simulate", "launch", "local.said").status == 0)
        try agent.waitForLog("run r000001 of local.said ended: success")
        #expect(try agent.ctl("simulate", "launch", "local.said").status == 0)
        try agent.waitForLog("run r000002 of local.said ended: success")

        let history = try runs(agent, "local.said")
        #expect(history.map { $0["runID"] as? String } == ["r000002", "r000001"])
        for run in history {
            #expect(run["statusText"] as? String == "indexed 3 of 3")
            #expect(run["result"] as? String == "/srv/out/nightly 1.tar")
            #expect(run["truncatedLineCount"] as? Int == 2)
            #expect(run["invalidDirectiveCount"] as? Int == 2)
        }
        let first = try #require(history.last)
        #expect(first["checkpointGiven"] == nil)
        #expect(first["checkpointLeft"] as? String == "batch-0+")
        let second = try #require(history.first)
        #expect(second["checkpointGiven"] as? String == "batch-0+")
        #expect(second["checkpointLeft"] as? String == "batch-batch-0++")

        let verbose = try agent.ctl("history", "local.said", "-v")
        #expect(verbose.status == 0)
        #expect(verbose.stdout.contains("status:     indexed 3 of 3"))
        #expect(verbose.stdout.contains("result:     /srv/out/nightly 1.tar"))
        #expect(verbose.stdout.contains("checkpoint: batch-0+ → batch-batch-0++"))
        #expect(verbose.stdout.contains("output:     2 lines cut at 4096 bytes, 2 invalid directives ignored"))
        let explain = try agent.ctl("explain", "local.said")
        #expect(explain.stdout.contains("Last run (r000002) said:"))
        #expect(explain.stdout.contains("  result:     /srv/out/nightly 1.tar"))
        agent.stop()
    }

    @Test func aChainedRunGetsThePreviousRunsResultAndRunID() throws {
        let sandbox = try Sandbox()
        let producer = try sandbox.script("producer", "echo 'RESULT=/var/cache/nightly 2026=12.tar'\nexit 0\n")
        let quiet = try sandbox.script("quiet", "echo 'STATUS=nothing to hand on'\nexit 0\n")
        // Writes what it was handed; `unset` when the variable is absent, as opposed to empty.
        let consumer = try sandbox.script("consumer", """
            {
              echo "result=${AGENTD_PREVIOUS_RESULT-unset}"
              echo "run=${AGENTD_PREVIOUS_RUN_ID-unset}"
              echo "reason=$AGENTD_REASON"
            } > "$STATE_DIRECTORY/handed.tmp"
            mv "$STATE_DIRECTORY/handed.tmp" "$STATE_DIRECTORY/handed"

            """)
        try sandbox.write("jobs.d/producer.job", "[Job]\nIdentifier=local.producer\nExec=\(producer)\nOnSuccess=local.consumer\n")
        try sandbox.write("jobs.d/consumer.job", "[Job]\nIdentifier=local.consumer\nExec=\(consumer)\n")
        try sandbox.write("jobs.d/quiet.job", "[Job]\nIdentifier=local.quiet\nExec=\(quiet)\nOnSuccess=local.listener\n")
        try sandbox.write("jobs.d/listener.job", "[Job]\nIdentifier=local.listener\nExec=\(consumer)\n")
        let agent = try AgentProcess(sandbox: sandbox)

        #expect(try agent.ctl("simulate", "launch", "local.producer").status == 0)
        try agent.waitForLog("of local.consumer ended: success")
        let producerRun = try #require(try runs(agent, "local.producer").first?["runID"] as? String)
        let handed = try String(contentsOfFile: sandbox.stateDirectory + "/jobs/local.consumer/handed", encoding: .utf8)
        #expect(handed == "result=/var/cache/nightly 2026=12.tar\nrun=\(producerRun)\nreason=chained\n")
        #expect(try runs(agent, "local.consumer").first?["reason"] as? String == "chained")

        // A run that printed no RESULT= hands on its run id alone.
        #expect(try agent.ctl("simulate", "launch", "local.quiet").status == 0)
        try agent.waitForLog("of local.listener ended: success")
        let quietRun = try #require(try runs(agent, "local.quiet").first?["runID"] as? String)
        let alone = try String(contentsOfFile: sandbox.stateDirectory + "/jobs/local.listener/handed", encoding: .utf8)
        #expect(alone == "result=unset\nrun=\(quietRun)\nreason=chained\n")

        // A run that was not chained is handed nothing.
        #expect(try agent.ctl("simulate", "launch", "local.listener").status == 0)
        try agent.waitForLog("run r000005 of local.listener ended: success")
        let direct = try String(contentsOfFile: sandbox.stateDirectory + "/jobs/local.listener/handed", encoding: .utf8)
        #expect(direct == "result=unset\nrun=unset\nreason=simulated\n")
        agent.stop()
    }
}
