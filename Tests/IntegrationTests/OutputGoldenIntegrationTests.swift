// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// agentctl's output from a real agent, against golden files in Tests/Golden/integration/:
/// `--json` shapes (a renamed or removed field fails), and the tables at `COLUMNS=80`.
@Suite(.serialized) struct OutputGoldenIntegrationTests {
    @Test func jsonShapesAndTablesOfARealAgent() throws {
        let fixture = try FixtureAgent()
        let sandbox = fixture.sandbox
        for (name, arguments) in [("status", ["status", "--json"]), ("list", ["list", "--json"]),
                                  ("history", ["history", "--json"]),
                                  ("check", ["check", sandbox.configDirectory, "--json"])] {
            let result = try fixture.ctl80(arguments)
            #expect(result.status == (name == "check" ? 1 : 0), "\(name): \(result.stderr)")
            OutputGoldens.expect(try OutputGoldens.normalisedJSON(result.stdout, sandbox: sandbox), matches: "\(name).json")
        }
        for (name, arguments) in [("status", ["status"]), ("list", ["list"]), ("history", ["history"]),
                                  ("check", ["check", sandbox.configDirectory])] {
            let result = try fixture.ctl80(arguments)
            #expect(result.status == (name == "check" ? 1 : 0), "\(name): \(result.stderr)")
            #expect(!result.stdout.contains("\u{1B}"), "no colour on a pipe")
            for line in result.stdout.split(separator: "\n") where !line.contains(".job:") && !line.contains(sandbox.root) {
                #expect(line.count <= 80, "\(name) line wider than COLUMNS=80: \(line)")
            }
            // list's NEXT and LAST are clock times (`12:05`, `Mon 12:05`) at 80 columns.
            let volatile = OutputGoldens.timePatterns + (name == "list" ? [#"(?<![\w:])(\w{3} )?\d{2}:\d{2}(?![\w:])"#] : [])
            OutputGoldens.expect(OutputGoldens.normalisedText(result.stdout, sandbox: sandbox, volatile: volatile),
                                 matches: "\(name)-80.txt")
        }
    }

    @Test func errorsSayWhatToDoNext() throws {
        let fixture = try FixtureAgent()
        let unknown = try fixture.ctl80(["simulate", "launch", "local.nope"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "agentctl: no job local.nope (see agentctl list)\n")
        let busy = try fixture.ctl80(["simulate", "launch", "local.export"])
        #expect(busy.status == 5)
        #expect(busy.stderr.contains("wait for it, or agentctl cancel r000002"))
        let denied = try fixture.ctl80(["simulate", "launch", "other.denied"])
        #expect(denied.status == 3)
        #expect(denied.stderr.contains("add it"))
        let badLimit = try fixture.ctl80(["history", "--limit", "many"])
        #expect(badLimit.status == 2)
        #expect(badLimit.stderr.contains("(e.g. --limit 5) (see 'agentctl history --help')"))
        // Issue 29 item 4: a typo is an error with did-you-mean, not "No runs yet".
        let typo = try fixture.ctl80(["history", "local.quik"])
        #expect(typo.status == 1)
        #expect(typo.stderr == "agentctl: no job local.quik; did you mean local.quick? (see agentctl list)\n", "\(typo.stderr)")
        let explained = try fixture.ctl80(["explain", "local.exprt"])
        #expect(explained.stderr.contains("did you mean local.export?"), "\(explained.stderr)")
        let known = try fixture.ctl80(["history", "local.feed"])
        #expect(known.status == 0, "a job without runs yet has an empty history: \(known.stderr)")
        let missing = try fixture.ctl80(["check", fixture.sandbox.root + "/nowhere"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("(give the config directory, the one holding agentd.conf, manifests.d/ and jobs.d/, e.g. agentctl check /etc/agentd)"))
    }

    @Test func versionAndHelp() throws {
        let version = try runCommand(Binaries.agentctl, ["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("agentctl 0."))
        let help = try runCommand(Binaries.agentctl, ["simulate", "launch", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("Examples:\n  agentctl simulate launch"))
    }

    @Test func watchWithoutATerminalPrintsPlainSnapshots() throws {
        let fixture = try FixtureAgent()
        let result = try fixture.ctl80(["watch", "--count", "2", "--interval", "0.2"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("\u{1B}"), "no escape codes when not on a terminal")
        let snapshots = result.stdout.components(separatedBy: "\n\n").filter { $0.hasPrefix("agentd ") }
        #expect(snapshots.count == 2, "\(result.stdout)")
        #expect(result.stdout.contains("[##########----------------] 42%"))
        #expect(result.stdout.contains("Exporting Photos"))
        #expect(result.stdout.contains("42 of 100 complete · copying"))
    }

    @Test func watchWithoutAnAgentSaysItIsRetrying() throws {
        let path = "/tmp/agentd-nobody-here.sock"
        let result = try runCommand(Binaries.agentctl, ["--socket", path, "watch", "--count", "1"])
        #expect(result.status == 5)
        #expect(result.stdout.hasPrefix("agentd is not answering at \(path) (retrying…)"))
    }
}
