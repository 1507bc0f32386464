// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import Testing
@testable import AgentCLI

/// What people see, at a fixed width (`COLUMNS=80`, not a terminal) and a fixed clock, compared
/// with golden files under Tests/Golden/render/. `UPDATE_GOLDEN=1 swift test` rewrites them.
@Suite struct TableOutputGoldenTests {
    @Test func statusWithRunningAndWaitingWorkAndConfigProblems() {
        GoldenFile.expect(StatusCommand.render(Fixture.status(), context: Fixture.context()), matches: "render/status-80.txt")
    }

    @Test func statusOfAnIdleAgentWithACleanConfig() {
        let status = Fixture.status(running: [], pending: [], diagnostics: [], stateError: nil)
        GoldenFile.expect(StatusCommand.render(status, context: Fixture.context()), matches: "render/status-idle-80.txt")
    }

    @Test func statusOfAnOlderAgentWithoutInputsHasNoInputsSection() {
        let status = Fixture.status(running: [], pending: [], diagnostics: [], inputs: nil)
        #expect(!StatusCommand.render(status, context: Fixture.context()).contains("Inputs:"))
    }

    @Test func statusOnBatteryWithAPausedRunAndEveryWaitingReason() {
        let status = Fixture.status(running: Fixture.pausedRunning, pending: Fixture.conditionPending,
                                    diagnostics: [], inputs: Fixture.inputsOnBattery)
        let text = StatusCommand.render(status, context: Fixture.context())
        GoldenFile.expect(text, matches: "render/status-battery-80.txt")
        #expect(text.contains("  power      battery 15 % (discharging)"))
        #expect(text.contains("  low power  on (agentctl)"))
        #expect(text.contains("  network    down (no default route)"))
        #expect(text.contains("  pressure   memory, cpu busy"))
        #expect(text.contains("paused: external power"))
    }

    @Test func statusWithThermalFairAndASampledSource() {
        let status = Fixture.status(running: [], pending: [], diagnostics: [], inputs: Fixture.inputsThermalFair,
                                    manifestCount: 1, jobCount: 1)
        let text = StatusCommand.render(status, context: Fixture.context())
        GoldenFile.expect(text, matches: "render/status-thermal-80.txt")
        #expect(text.contains("  thermal    fair — x86_pkg_temp 82 °C, 8 °C below passive"))
        #expect(text.contains("1 manifest, 1 job, 0 errors, 0 warnings"))
        let coloured = StatusCommand.render(status, context: Fixture.context(style: Style(enabled: true)))
        #expect(coloured.contains("\u{1B}[33mthermal-netlink sampled (no thermal family)\u{1B}[0m"))
        #expect(coloured.contains("\u{1B}[33mpower-profiles unavailable (no system bus)\u{1B}[0m"))
        #expect(!coloured.contains("\u{1B}[33muevent live"), "live sources are plain")
    }

    @Test func inputValuesReadAsPeopleSayThem() {
        var inputs = Fixture.inputsThermalFair
        #expect(InputsView.power(inputs) == "ac")
        inputs.batteryPercent = 80
        inputs.batteryStatus = "charging"
        #expect(InputsView.power(inputs) == "ac, battery 80 % (charging)")
        #expect(InputsView.lowPower(inputs) == "off (auto)")
        inputs.lowPower = true
        inputs.lowPowerSource = "auto (power-profiles-daemon)"
        #expect(InputsView.lowPower(inputs) == "on (auto, power-profiles-daemon)")
        inputs.lowPowerSource = "off (agentctl)"
        inputs.lowPower = false
        #expect(InputsView.lowPower(inputs) == "off (agentctl)")
        inputs.thermal = "serious"
        inputs.hottestCelsius = 97.46
        inputs.marginCelsius = -2.5
        #expect(InputsView.thermal(inputs) == "serious — x86_pkg_temp 97.5 °C, 2.5 °C above passive")
        inputs.marginCelsius = nil
        inputs.hottestZone = nil
        #expect(InputsView.thermal(inputs) == "serious — 97.5 °C")
        inputs.hottestCelsius = nil
        #expect(InputsView.thermal(inputs) == "serious")
        #expect(InputsView.thermalRole("critical") == .error)
        #expect(InputsView.pressure(inputs) == "none")
    }

    @Test func sourcesWrapUnderTheirColumnToFitTheWidth() {
        let lines = InputsView.block(Fixture.inputsThermalFair, width: 60).map { $0.plain }
        let sources = lines.drop { !$0.hasPrefix("  sources") }
        #expect(sources.count > 1)
        for line in sources {
            #expect(DisplayText.width(line) <= 60, "\(line)")
        }
        #expect(sources.dropFirst().allSatisfy { $0.hasPrefix("             ") && !$0.hasPrefix("              ") })
        #expect(sources.dropLast().allSatisfy { $0.hasSuffix(" ·") })
        let unlimited = InputsView.block(Fixture.inputsThermalFair, width: nil).map { $0.plain }
        #expect(unlimited.last == "  sources    uevent live · thermal-netlink sampled (no thermal family) · rtnetlink live · psi live · power-profiles unavailable (no system bus) · networkmanager unavailable (no system bus)")
    }

    @Test func monitorsWithoutTheSystemBusSayNoSystemBusAndTheBusSaysWhyOnce() {
        let why = "no D-Bus system bus (connect to unix:path=/run/dbus/system_bus_socket: No such file or directory)"
        var inputs = Fixture.inputsOnAC
        inputs.sources = [InputSource(name: "uevent", state: .live),
                          InputSource(name: "system-bus", state: .unavailable, detail: why),
                          InputSource(name: "networkmanager", state: .unavailable, detail: why),
                          InputSource(name: "logind", state: .unavailable, detail: why + "; no sleep inhibitor, runs sleep with the machine"),
                          InputSource(name: "power-profiles", state: .unavailable, detail: "the bus refused a match rule")]
        let line = InputsView.block(inputs, width: nil).map(\.plain).last
        #expect(line == "  sources    uevent live · system-bus unavailable (\(why)) · networkmanager unavailable (no system bus) · "
                + "logind unavailable (no system bus; no sleep inhibitor, runs sleep with the machine) · "
                + "power-profiles unavailable (the bus refused a match rule)")
        #expect(InputsView.summary(inputs, width: nil).last?.plain.contains("networkmanager unavailable (no system bus)") == true)
    }

    @Test func meteredShowsTheStateAndWhereItComesFromAndIsLeftOutForAnOlderAgent() {
        #expect(InputsView.metered(Fixture.inputsOnBattery) == "yes (NetworkManager: guess-yes)")
        #expect(InputsView.metered(Fixture.inputsThermalFair) == "no (no system bus)")
        let metered = InputsView.items(Fixture.inputsOnBattery).first { $0.label == "metered" }
        #expect(metered?.role == .warning)
        #expect(InputsView.items(Fixture.inputsOnAC).first { $0.label == "metered" }?.role == nil)
        var old = Fixture.inputsOnAC
        old.metered = nil
        old.meteredSource = nil
        #expect(!InputsView.items(old).contains { $0.label == "metered" })
    }

    @Test func textFromTheAgentCannotSendEscapeSequences() {
        var inputs = Fixture.inputsThermalFair
        inputs.hottestZone = "zone\u{1B}[2J"
        inputs.sources[1].detail = "bell\u{07}"
        var run = Fixture.pausedRunning[0]
        run.paused = "power\u{1B}]0;x"
        let text = StatusCommand.render(Fixture.status(running: [run], pending: [], inputs: inputs), context: Fixture.context(width: nil))
        #expect(!text.contains("\u{1B}"))
        #expect(!text.contains("\u{07}"))
    }

    @Test func resourcesWithGPUs() {
        let report = ResourcesReport(gpus: Fixture.gpus, inputs: Fixture.inputsOnAC)
        GoldenFile.expect(MachineCommands.render(report, context: Fixture.context()), matches: "render/resources-80.txt")
    }

    @Test func resourcesWithoutAGPUSayWhatThatMeans() {
        let report = ResourcesReport(gpus: [], inputs: Fixture.inputsThermalFair)
        let text = MachineCommands.render(report, context: Fixture.context())
        GoldenFile.expect(text, matches: "render/resources-no-gpu-80.txt")
        #expect(text.hasPrefix("No GPU found: refresh and processing jobs with Resources=gpu wait\n(\"resource gpu\"); agentctl submit refuses continued ones (exit 5).\n"))
    }

    @Test func statusWithAStateProblem() {
        let status = Fixture.status(running: [], pending: [], diagnostics: [],
                                    stateError: "cannot open /var/lib/agentd/state.db: disk I/O error")
        #expect(StatusCommand.render(status, context: Fixture.context()).contains("state error: cannot open /var/lib/agentd/state.db: disk I/O error"))
    }

    @Test func listFiles() {
        GoldenFile.expect(ListCommand.render(Fixture.jobs, context: Fixture.context()), matches: "render/list-files-80.txt")
    }

    @Test func listWithNoJobsSaysWhereToPutOne() {
        #expect(ListCommand.render([], context: Fixture.context()).contains("jobs.d/"))
        #expect(TimersView.render([], lastRun: [:], context: Fixture.context()).contains("jobs.d/"))
    }

    @Test func history() {
        GoldenFile.expect(RunCommands.render(Fixture.runs, context: Fixture.context()), matches: "render/history-80.txt")
    }

    /// `history -v`: under each run, what it said (issue 13: run records keep what the run said).
    @Test func historyVerbose() {
        GoldenFile.expect(RunCommands.render(Fixture.runs, context: Fixture.context(), verbose: true),
                          matches: "render/history-verbose-80.txt")
    }

    @Test func historyWithNoRunsSaysHowToStartOne() {
        #expect(RunCommands.render([], context: Fixture.context()) == "No runs yet (agentctl run ID starts one now; a continued job starts with agentctl submit ID).")
        #expect(RunCommands.noRuns("local.norun", StartRange()) == "No runs yet (agentctl run local.norun starts one now; a continued job starts with agentctl submit local.norun).")
    }

    @Test func check() {
        GoldenFile.expect(CheckCommand.render(Fixture.checkReport, style: .plain), matches: "render/check.txt")
    }

    @Test func theIdentifierColumnIsNeverCut() {
        let context = Fixture.context()
        let outputs = [ListCommand.render(Fixture.jobs, context: context), RunCommands.render(Fixture.runs, context: context),
                       StatusCommand.render(Fixture.status(), context: context)]
        for output in outputs {
            #expect(output.contains("local.photos.export "), "\(output)")
        }
    }

    @Test func everyTableLineFitsEightyColumns() {
        let context = Fixture.context()
        let busy = Fixture.status(running: Fixture.running + Fixture.pausedRunning, pending: Fixture.pending + Fixture.conditionPending,
                                  inputs: Fixture.inputsThermalFair)
        let outputs = [StatusCommand.render(Fixture.status(), context: context),
                       StatusCommand.render(busy, context: context),
                       MachineCommands.render(ResourcesReport(gpus: Fixture.gpus, inputs: Fixture.inputsOnBattery), context: context),
                       MachineCommands.render(ResourcesReport(gpus: [], inputs: Fixture.inputsThermalFair), context: context),
                       ListCommand.render(Fixture.jobs, context: context),
                       RunCommands.render(Fixture.runs, context: context)]
        for output in outputs {
            for line in output.split(separator: "\n") where !line.contains(".job:") && !line.hasPrefix("Config problems") {
                #expect(DisplayText.width(String(line)) <= 80, "\(line)")
            }
        }
    }

    @Test func colourChangesNoCharacterPeopleSee() {
        let plain = Fixture.context()
        let coloured = Fixture.context(style: Style(enabled: true))
        let battery = Fixture.status(running: Fixture.pausedRunning, inputs: Fixture.inputsOnBattery)
        let resources = ResourcesReport(gpus: [], inputs: Fixture.inputsThermalFair)
        let pairs = [(StatusCommand.render(Fixture.status(), context: plain), StatusCommand.render(Fixture.status(), context: coloured)),
                     (StatusCommand.render(battery, context: plain), StatusCommand.render(battery, context: coloured)),
                     (MachineCommands.render(resources, context: plain), MachineCommands.render(resources, context: coloured)),
                     (ListCommand.render(Fixture.jobs, context: plain), ListCommand.render(Fixture.jobs, context: coloured)),
                     (RunCommands.render(Fixture.runs, context: plain), RunCommands.render(Fixture.runs, context: coloured)),
                     (CheckCommand.render(Fixture.checkReport, style: .plain), CheckCommand.render(Fixture.checkReport, style: Style(enabled: true)))]
        for (withoutColour, withColour) in pairs {
            #expect(withColour != withoutColour)
            #expect(stripEscapes(withColour) == withoutColour)
        }
    }

    @Test func coloursFollowMeaning() {
        let coloured = Fixture.context(width: nil, style: Style(enabled: true))
        let history = RunCommands.render(Fixture.runs, context: coloured)
        #expect(history.contains("\u{1B}[32msuccess\u{1B}[0m"))
        #expect(history.contains("\u{1B}[31mfailure(exit 3)\u{1B}[0m"))
        #expect(history.contains("\u{1B}[33mexpired(no-progress)\u{1B}[0m"))
        let list = ListCommand.render(Fixture.jobs, context: coloured)
        #expect(list.contains("\u{1B}[32mregistered\u{1B}[0m"))
        #expect(list.contains("\u{1B}[31mnot-permitted"))
        let status = StatusCommand.render(Fixture.status(), context: coloured)
        #expect(status.contains("\u{1B}[36mlocal.photos.export\u{1B}[0m"))
        #expect(status.contains("\u{1B}[33mexpiring\u{1B}[0m"))
    }
}

/// `--json` shapes: every field of every answer, fully populated, pinned in Tests/Golden/json/.
/// A renamed or removed field changes the text and fails here (the integration tests pin the
/// same shapes as a real agentd sends them).
@Suite struct JSONShapeGoldenTests {
    @Test func status() throws {
        var status = Fixture.status(stateError: "cannot open /var/lib/agentd/state.db: disk I/O error")
        status.running[0].statusText = "uploading"
        status.paused = true
        status.budgetLeft = 45
        status.dailyBudget = 48
        status.metricsFileProblem = "metrics file: /etc/passwd exists and is not a metrics file agentd wrote; agentd "
            + "neither replaces nor removes it: remove it yourself if it is stale, or set MetricsFile= in agentd.conf to a new path"
        GoldenFile.expect(try MessageCoding.encodePretty(status), matches: "json/status.json")
    }

    @Test func statusWithAPausedRunAndInputsOnBattery() throws {
        var status = Fixture.status(running: Fixture.pausedRunning, pending: Fixture.conditionPending, diagnostics: [],
                                    inputs: Fixture.inputsOnBattery)
        status.inputs?.sources = Fixture.inputsThermalFair.sources
        status.inputs?.hottestZone = "acpitz"
        status.inputs?.hottestCelsius = 61.5
        status.inputs?.marginCelsius = 28.5
        status.inputs?.marginTrip = "passive"
        GoldenFile.expect(try MessageCoding.encodePretty(status), matches: "json/status-inputs.json")
    }

    @Test func resources() throws {
        GoldenFile.expect(try MessageCoding.encodePretty(ResourcesReport(gpus: Fixture.gpus, inputs: Fixture.inputsThermalFair)),
                          matches: "json/resources.json")
    }

    @Test func list() throws {
        var jobs = Fixture.jobs
        jobs[0].waiting = "interval (earliest 14:05)"
        jobs[0].waitingReason = "interval"
        jobs[0].waitingUntil = Double(Fixture.now) + 2100
        GoldenFile.expect(try MessageCoding.encodePretty(jobs), matches: "json/list.json")
    }

    @Test func calendar() throws {
        let report = CalendarReport(originalForm: "Wed, 17:48", normalizedForm: "Wed *-*-* 17:48:00",
                                    nextElapses: [Instant(wrappedValue: Fixture.nowMs + 3_600_000)])
        GoldenFile.expect(try MessageCoding.encodePretty([report]), matches: "json/calendar.json")
    }

    @Test func history() throws {
        GoldenFile.expect(try MessageCoding.encodePretty(Fixture.runs), matches: "json/history.json")
    }

    @Test func check() throws {
        GoldenFile.expect(try MessageCoding.encodePretty(Fixture.checkReport), matches: "json/check.json")
    }

    @Test func pending() throws {
        GoldenFile.expect(try MessageCoding.encodePretty(JSONFixture.pending), matches: "json/pending.json")
    }

    @Test func explain() throws {
        GoldenFile.expect(try MessageCoding.encodePretty(JSONFixture.explain), matches: "json/explain.json")
    }

    @Test func stats() throws {
        GoldenFile.expect(try MessageCoding.encodePretty(JSONFixture.stats), matches: "json/stats.json")
    }
}

/// Removes SGR colour sequences.
func stripEscapes(_ text: String) -> String {
    var result = ""
    var inEscape = false
    for character in text {
        if inEscape {
            if character.isLetter { inEscape = false }
        } else if character == "\u{1B}" {
            inEscape = true
        } else {
            result.append(character)
        }
    }
    return result
}
