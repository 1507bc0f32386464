// SPDX-License-Identifier: Apache-2.0
import AgentPOSIX
import Foundation
import Testing

/// `agentctl request` and `cancel-request` against a real agentd (issue 27, DESIGN §4): a
/// refresh or processing job's next run asked for at run time, as BGTaskScheduler's `submit`.
@Suite(.serialized) struct RequestTests {
    private func pending(_ agent: AgentProcess) throws -> [[String: Any]] {
        try json(try agent.ctl("pending", "--json").stdout) as? [[String: Any]] ?? []
    }

    @Test func aRequestIsShownWithItsEarliestBeginAndRequirementsAndANewOneReplacesIt() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/feed.job", "[Job]\nIdentifier=local.feed\nKind=refresh\nExec=\(sandbox.pluginPath)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let first = try agent.ctl("request", "local.feed", "--earliest", "+2h", "--requires-network=unmetered",
                                  "--requires-external-power")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("requested local.feed; waiting: requested (earliest "))
        let waiting = try pending(agent).first { $0["identifier"] as? String == "local.feed" }
        let request = waiting?["request"] as? [String: Any]
        #expect(request?["requiresNetwork"] as? String == "unmetered")
        #expect(request?["requiresExternalPower"] as? Bool == true)
        #expect(request?["earliestBegin"] is String, "an RFC 3339 instant")

        let second = try agent.ctl("request", "local.feed", "--earliest", "+1h")
        #expect(second.stdout.contains("(replacing the pending request)"))
        let replaced = try pending(agent).first { $0["identifier"] as? String == "local.feed" }
        #expect((replaced?["request"] as? [String: Any])?["requiresExternalPower"] == nil)
    }

    @Test func aRequestForNowLaunchesWithReasonRequestedAndSaysWhichRun() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/feed.job", "[Job]\nIdentifier=local.feed\nKind=refresh\nExec=\(sandbox.pluginPath)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let result = try agent.ctl("request", "local.feed")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("requested local.feed: started run r000001"))
        try agent.waitForLog("run r000001 of local.feed started (requested")
    }

    @Test func cancelRequestWithdrawsThePendingRequestAndCancelStopsOnlyTheLiveRun() throws {
        let sandbox = try Sandbox()
        let long = try sandbox.script("long", "trap 'exit 0' TERM\nwhile :; do sleep 0.1; done\n")
        try sandbox.write("jobs.d/feed.job", "[Job]\nIdentifier=local.feed\nKind=refresh\nExec=\(long)\nGracePeriod=1s\n")
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try agent.ctl("request", "local.feed").status == 0)
        try agent.waitForLog("run r000001 of local.feed started (requested")
        #expect(try agent.ctl("request", "local.feed", "--earliest", "+1h").status == 0)

        let cancelled = try agent.ctl("cancel", "local.feed")
        #expect(cancelled.stdout.contains("cancelling r000001"))
        try agent.waitForLog("of local.feed ended: cancelled")
        #expect(try pending(agent).contains { $0["identifier"] as? String == "local.feed" }, "the request stays")

        let withdrawn = try agent.ctl("cancel-request", "local.feed")
        #expect(withdrawn.status == 0)
        #expect(withdrawn.stdout.contains("withdrew 1 request for local.feed"))
        #expect(try agent.ctl("cancel-request", "local.feed").stdout.contains("nothing was pending for local.feed"))
        let nothing = try agent.ctl("cancel", "local.feed")
        #expect(nothing.status != 0)
        #expect(nothing.stderr.contains("nothing was running"))
    }

    @Test func cancelRequestAllWithdrawsEveryPendingRequestAndSubmission() throws {
        let sandbox = try Sandbox()
        try sandbox.write("agentd.conf", "[Agent]\nMaxConcurrent=1\n")
        let long = try sandbox.script("long", "trap 'exit 0' TERM\nwhile :; do echo PROGRESS=1/2; sleep 0.1; done\n")
        try sandbox.write("jobs.d/feed.job", "[Job]\nIdentifier=local.feed\nKind=refresh\nExec=\(sandbox.pluginPath)\n")
        try sandbox.write("jobs.d/export.job", "[Job]\nIdentifier=local.export\nKind=continued\nExec=\(long)\nGracePeriod=1s\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let submitted = try agent.ctl("submit", "local.export")
        #expect(submitted.stdout.contains("submitted local.export as request "))
        #expect(submitted.stdout.contains(": started run r000001"))
        #expect(try agent.ctl("submit", "local.export").stdout.contains(": queued (position 1)"))
        #expect(try agent.ctl("request", "local.feed", "--earliest", "+1h").status == 0)
        let all = try agent.ctl("cancel-request", "--all")
        #expect(all.stdout.contains("withdrew 1 request and 1 submission"), "\(all.stdout)")
        #expect(try pending(agent).isEmpty)
        #expect(try agent.ctl("cancel", "r000001").status == 0)
    }

    @Test func aRunRequestsItsOwnNextRunThroughAgentdSocketWithoutTriggerSpacing() throws {
        let sandbox = try Sandbox()
        // Each run asks for the next one a second later, from inside the run, until the third.
        let body = """
            n=$(cat "$STATE_DIRECTORY/count" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$STATE_DIRECTORY/count"
            [ "$n" -lt 3 ] && \(Binaries.agentctl) request "$AGENTD_IDENTIFIER" --earliest +1s
            exit 0

            """
        let plugin = try sandbox.script("again", body)
        // User=root: a run of another user may not change the agent until per-manifest authority
        // (a run acting for its own identifiers, issue 27 item 3) is enforced.
        try sandbox.write("jobs.d/feed.job", "[Job]\nIdentifier=local.feed\nKind=refresh\nExec=\(plugin)\nUser=root\n")
        let agent = try AgentProcess(sandbox: sandbox)
        #expect(try agent.ctl("request", "local.feed").status == 0)
        try agent.waitForLog("run r000001 of local.feed started (requested")
        try agent.waitForLog("run r000002 of local.feed started (requested")
        try agent.waitForLog("run r000003 of local.feed started (requested")
        try agent.waitForLog("run r000003 of local.feed ended: success")
    }

    @Test func aDynamicIdentifierAManifestPermitsIsRequestedAsItsJobsRequest() throws {
        let sandbox = try Sandbox()
        try sandbox.write("manifests.d/feed.manifest", """
            [Manifest]
            PermittedIdentifiers=com.example.feed com.example.feed.* com.example.tidy
            BackgroundModes=refresh processing

            """)
        try sandbox.write("jobs.d/feed.job", "[Job]\nIdentifier=com.example.feed\nKind=refresh\nExec=\(sandbox.pluginPath)\n")
        try sandbox.write("jobs.d/tidy.job", "[Job]\nIdentifier=com.example.tidy\nKind=processing\nExec=\(sandbox.pluginPath)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let news = try agent.ctl("request", "com.example.feed.news", "--earliest", "+1h")
        #expect(news.status == 0, "\(news.stderr)")
        #expect(news.stdout.contains("requested com.example.feed; waiting: requested (earliest "), "\(news.stdout)")
        #expect(news.stdout.contains("(com.example.feed.news is a dynamic identifier of job com.example.feed: one request is pending per job, and its run is the job's)"))
        #expect(try pending(agent).contains { $0["identifier"] as? String == "com.example.feed" && $0["request"] != nil })
        // Another dynamic identifier of the same job replaces it: one pending request per job.
        #expect(try agent.ctl("request", "com.example.feed.sports", "--earliest", "+2h").stdout
                    .contains("(replacing the pending request)"))
        let withdrawn = try agent.ctl("cancel-request", "com.example.feed.news")
        #expect(withdrawn.stdout.contains("withdrew 1 request for com.example.feed.news"), "\(withdrawn.stdout)")
        #expect(try pending(agent).isEmpty)

        // No `.*` for com.example.tidy: its dynamic identifiers are not permitted (DESIGN §3).
        let unpermitted = try agent.ctl("request", "com.example.tidy.now")
        #expect(unpermitted.status == 3, "\(unpermitted.stderr)")
        #expect(unpermitted.stderr.contains("no manifest permits com.example.tidy.now: a request needs a job of that identifier, "
            + "and a manifest in manifests.d/ whose PermittedIdentifiers= covers it (no job com.example.tidy.now"), "\(unpermitted.stderr)")
        // A typo of a permitted job is no job, with the likely one.
        let typo = try agent.ctl("request", "com.example.tid")
        #expect(typo.status == 3, "com.example.tid is permitted by no manifest either: \(typo.stderr)")
        let missing = try agent.ctl("request", "com.example.feed2")
        #expect(missing.status == 3, "\(missing.stderr)")
        #expect(missing.stderr.contains("did you mean com.example.feed?"), "\(missing.stderr)")
    }

    @Test func aContinuedJobsDynamicIdentifierIsSubmittedNotRequested() throws {
        let sandbox = try Sandbox()
        try sandbox.write("manifests.d/photos.manifest", """
            [Manifest]
            PermittedIdentifiers=com.example.export com.example.export.*
            BackgroundModes=continued

            """)
        try sandbox.write("jobs.d/export.job", "[Job]\nIdentifier=com.example.export\nKind=continued\nExec=\(sandbox.pluginPath)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let refused = try agent.ctl("request", "com.example.export.holidays")
        #expect(refused.status == 1, "the wrong verb, as run and trigger say: \(refused.stderr)")
        #expect(refused.stderr.contains("com.example.export.holidays is a continued job (a dynamic identifier of com.example.export): it is submitted (agentctl submit com.example.export.holidays), not requested"),
                "\(refused.stderr)")
    }

    @Test func requestsAndTheirWithdrawalAreOnTheEventStream() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/feed.job", "[Job]\nIdentifier=local.feed\nKind=processing\nExec=\(sandbox.pluginPath)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let events = try EventSubscriber(socket: sandbox.socketPath, filter: [
            "kinds": ["request-added", "request-replaced", "request-withdrawn", "run-started"]])
        #expect(try agent.ctl("request", "local.feed", "--earliest", "+1h").status == 0)
        #expect(try agent.ctl("request", "local.feed", "--earliest", "+2h", "--requires-external-power").status == 0)
        #expect(try agent.ctl("cancel-request", "local.feed").status == 0)
        let seen = try events.events { $0["type"] as? String == "request-withdrawn" }
        #expect(seen.map { $0["type"] as? String ?? "?" } == ["request-added", "request-replaced", "request-withdrawn"])
        #expect(seen[0]["kind"] as? String == "processing")
        #expect((seen[0]["request"] as? [String: Any])?["earliestBegin"] is String, "an RFC 3339 instant")
        #expect((seen[1]["request"] as? [String: Any])?["requiresExternalPower"] as? Bool == true)
        #expect(seen[2]["message"] as? String == "withdrew 1 request")
        // A request that starts a run at once says so with its run-started, as a submission does.
        #expect(try agent.ctl("request", "local.feed").status == 0)
        let started = try events.events { $0["type"] as? String == "run-started" }
        #expect(started.count == 1 && started.first?["reason"] as? String == "requested", "\(started)")
    }

    /// The socket's legacy numeric earliestBegin takes any number: one past the year 9999 (a
    /// run may send it for its own identifier) is refused, and the agent goes on answering.
    @Test func anEarliestBeginNoInstantCanSayIsRefusedAndHarmsNothing() throws {
        let sandbox = try Sandbox()
        try sandbox.write("jobs.d/feed.job", "[Job]\nIdentifier=local.feed\nKind=refresh\nExec=\(sandbox.pluginPath)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        for value in ["1e19", "1e12", "-1e19"] {
            let client = try ControlClient.connect(path: sandbox.socketPath)
            try client.send(line: Array("{\"command\":\"request\",\"target\":\"local.feed\",\"request\":{\"earliestBegin\":\(value)}}".utf8))
            let answer = try EventSubscriber.object(try client.readLine(timeout: .seconds(20)))
            let error = answer["error"] as? [String: Any]
            #expect(error?["code"] as? String == "bad-request", "\(value): \(answer)")
            #expect((error?["message"] as? String)?.hasPrefix("request: earliestBegin is not a time between the years 1 and 9999") == true)
        }
        #expect(try agent.ctl("status").status == 0)
        #expect(try agent.ctl("pending").stdout == "Nothing is waiting.\n")
    }
}
