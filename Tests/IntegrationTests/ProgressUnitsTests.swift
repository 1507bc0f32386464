// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `PROGRESS=N/M` keeps its units (issue 27): `completedUnitCount`/`totalUnitCount` beside
/// `progress` in status, history and the event stream; `N%` keeps the fraction only.
@Suite(.serialized) struct ProgressUnitsTests {
    @Test func unitCountsReachStatusHistoryAndAPercentageKeepsTheFractionOnly() throws {
        let sandbox = try Sandbox()
        let units = try sandbox.script("units", "echo PROGRESS=4/10\nwhile [ ! -e \"$STATE_DIRECTORY/go\" ]; do sleep 0.05; done\n")
        let percent = try sandbox.script("percent", "echo PROGRESS=40%\n")
        try sandbox.write("jobs.d/units.job", "[Job]\nIdentifier=local.units\nKind=processing\nExec=\(units)\n")
        try sandbox.write("jobs.d/percent.job", "[Job]\nIdentifier=local.percent\nKind=processing\nExec=\(percent)\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let events = try EventSubscriber(socket: sandbox.socketPath, filter: ["kinds": ["run-progress"]])
        #expect(try agent.ctl("request", "local.units").status == 0)
        let seen = try events.events { $0["identifier"] as? String == "local.units" }
        #expect(seen.last?["completedUnitCount"] as? Int == 4)
        #expect(seen.last?["totalUnitCount"] as? Int == 10)

        let status = try json(try agent.ctl("status", "--json").stdout) as? [String: Any]
        let running = (status?["running"] as? [[String: Any]])?.first { $0["identifier"] as? String == "local.units" }
        #expect(running?["progress"] as? Double == 0.4)
        #expect(running?["completedUnitCount"] as? Int == 4)
        #expect(running?["totalUnitCount"] as? Int == 10)

        #expect(FileManager.default.createFile(atPath: sandbox.stateDirectory + "/jobs/local.units/go", contents: nil))
        try agent.waitForLog("of local.units ended: success")
        #expect(try agent.ctl("request", "local.percent").status == 0)
        try agent.waitForLog("of local.percent ended: success")
        let history = try json(try agent.ctl("history", "--json").stdout) as? [[String: Any]] ?? []
        let unitRun = history.first { $0["identifier"] as? String == "local.units" }
        #expect(unitRun?["completedUnitCount"] as? Int == 4)
        #expect(unitRun?["totalUnitCount"] as? Int == 10)
        let percentRun = history.first { $0["identifier"] as? String == "local.percent" }
        #expect(percentRun?["progress"] as? Double == 0.4)
        #expect(percentRun?["completedUnitCount"] == nil)
    }
}
