// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The ported iOS examples (examples/, docs/app-developers.md) under a real agentd: the
/// `BackgroundTasks` library's requests, launches, expiration and completion end to end.
@Suite(.serialized) struct ExampleAppTests {
    /// A sandbox whose manifest permits the examples' identifiers, and a job running `example`
    /// as the agent's default user (nobody): a run acts for its own manifest's identifiers, so
    /// the refresh schedules its next refresh without root or group agentd (DESIGN §9).
    private func sandbox(_ job: String, kind: String, example: String, extra: String = "") throws -> Sandbox {
        let sandbox = try Sandbox()
        chmod(sandbox.root, 0o755)  // the run (nobody) reaches the socket
        try sandbox.write("manifests.d/colorfeed.manifest",
                          "[Manifest]\nPermittedIdentifiers=com.example.colorfeed.*\nBackgroundModes=refresh processing\n")
        try sandbox.write("jobs.d/\(job).job", """
            [Job]
            Identifier=com.example.colorfeed.\(job)
            Kind=\(kind)
            Exec=\(Binaries.directory)/\(example)
            \(extra)
            """)
        return sandbox
    }

    @Test func theRefreshReschedulesItselfThreeTimesAtItsOwnEarliestBeginDate() throws {
        let sandbox = try sandbox("refresh", kind: "refresh", example: "colorfeed-refresh",
                                  extra: "Environment=COLORFEED_REFRESH_SECONDS=1\n")
        let agent = try AgentProcess(sandbox: sandbox)
        // Started by a person first: it asks for its first refresh and exits.
        let first = try runCommand(Binaries.directory + "/colorfeed-refresh", [],
                                   environment: ["AGENTD_SOCKET": sandbox.socketPath, "COLORFEED_REFRESH_SECONDS": "1"])
        #expect(first.status == 0)
        #expect(first.stdout.contains("scheduled com.example.colorfeed.refresh"), "\(first.stdout)\(first.stderr)")
        for run in 1...4 {
            try agent.waitForLog("run r00000\(run) of com.example.colorfeed.refresh started (requested")
            try agent.waitForLog("refresh \(run) done; next no earlier than 1 s from now")
        }
        try agent.waitForLog("run r000004 of com.example.colorfeed.refresh ended: success")
        let pending = try json(try agent.ctl("pending", "--json").stdout) as? [[String: Any]] ?? []
        #expect(pending.contains { $0["identifier"] as? String == "com.example.colorfeed.refresh" && $0["request"] != nil },
                "the fourth run asked for a fifth")
    }

    @Test func anExpirationReachesTheExpirationHandlerWithinTheGracePeriodAndItsCheckpointIsKept() throws {
        let sandbox = try sandbox("db-cleaning", kind: "processing", example: "colorfeed-db-cleaning",
                                  extra: "GracePeriod=5s\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let events = try EventSubscriber(socket: sandbox.socketPath, filter: ["kinds": ["run-progress"]])
        #expect(try agent.ctl("simulate", "launch", "com.example.colorfeed.db-cleaning").status == 0)
        try agent.waitForLog("cleaning entries 0 to 600")
        _ = try events.events { ($0["completedUnitCount"] as? Int ?? 0) >= 3 }
        #expect(try agent.ctl("simulate", "expire", "com.example.colorfeed.db-cleaning").status == 0)
        let said = try agent.waitForLog("expirationHandler: stopped at entry ")
        try agent.waitForLog("of com.example.colorfeed.db-cleaning ended: expired(simulated)")
        let history = try json(try agent.ctl("history", "--json").stdout) as? [[String: Any]] ?? []
        // It ended itself (setTaskCompleted(success: false): exit 1) before the grace period's SIGKILL.
        #expect(history.first?["exitStatus"] as? Int == 1, "\(history.first ?? [:])")
        #expect(history.first?["signal"] as? Int != 9)
        let left = history.first?["checkpointLeft"] as? String
        #expect(left.flatMap(Int.init).map { $0 >= 3 } == true, "\(said)")

        #expect(try agent.ctl("simulate", "launch", "com.example.colorfeed.db-cleaning").status == 0)
        try agent.waitForLog("cleaning entries \(left ?? "?") to 600")
    }
}
