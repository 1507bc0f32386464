// SPDX-License-Identifier: Apache-2.0
import AgentTestSupport
@testable import AgentCore

/// Runs golden-script commands against a ``ScriptShell`` and returns what each printed.
/// The commands are listed in docs/testing.md.
struct ScriptInterpreter {
    var shell = ScriptShell()
    private var started = false

    /// Runs one command (with its input lines) and returns its output lines.
    mutating func run(_ command: String, input: [String]) throws -> [String] {
        shell.output = []
        let words = try Self.words(command)
        guard let verb = words.first else { return [] }
        let args = Array(words.dropFirst())
        if verb != "seed" { started = true }
        switch verb {
        case "seed": try seed(args)
        case "booted":
            // `booted SPAN`: the machine booted SPAN before now (default: 1h before the start).
            guard let span = TimeSpan.parse(try Self.only(args, "booted SPAN")) else { throw ScriptError("booted SPAN") }
            shell.bootedAt = shell.now - span
        case "reboot":
            // `reboot DOWNTIME`: the machine is down that long and boots again; the agent starts with it.
            shell.rebooting = true
            shell.restart(after: TimeSpan.parse(args.first ?? "0") ?? .zero)
        case "jobs": shell.setJobs(try jobDefinitions(input), replacing: true)
        case "update": shell.setJobs(try jobDefinitions(input), replacing: false)
        case "remove": shell.removeJobs(try args.map(Self.identifier))
        case "settings": try settings(args)
        case "manifest": try manifest(args, input)
        case "remove-manifest": shell.setManifest(try Self.only(args, "remove-manifest NAME"), nil)
        case "calendar": try calendar(args)
        case "runs": try runs(args)
        case "locks":
            // `locks shown`: print the sleep and idle inhibitors the scheduler wants, as they change.
            shell.showsLocks = try Self.only(args, "locks shown") == "shown"
            shell.locksSeen = (shell.scheduler.wantsSleepLock, shell.scheduler.idleLockRuns)
        case "advance": try advance(args)
        case "trigger": try simple(args) { .trigger($0) }
        case "cancel-request": try cancelRequest(args)
        case "cancel": try cancelRuns(args)
        case "request": try request(args)
        case "enable": try simple(args) { .setEnabled($0, true) }
        case "disable": try simple(args) { .setEnabled($0, false) }
        case "pause": shell.send(.setPaused(true)); shell.settle()
        case "resume": shell.send(.setPaused(false)); shell.settle()
        case "submit": try submit(args)
        case "conditions": try conditions(args)
        case "end": try end(args)
        case "progress": try progress(args)
        case "simulate":
            let id = try Self.identifier(Self.only(args, "simulate ID"))
            // A refusal shows as the scheduler's reply (`refused: cannot start now: running`).
            _ = shell.simulate(id)
            shell.settle()
        case "stop":
            // SIGTERM: the daemon tells the scheduler before it tears down the live runs.
            shell.send(.agentStopping)
            shell.settle()
        case "restart": shell.restart(after: try args.first.map(Self.span) ?? .zero)
        case "suspend": shell.suspend(for: try Self.span(Self.only(args, "suspend SPAN")))
        case "pending": pending()
        case "explain": try explain(args)
        case "why": try why(args)
        case "status": status()
        case "db": database()
        case "deadline": shell.emit("next: \(nextDeadline())")
        case "wake-slot":
            // The slot the shell's CLOCK_REALTIME_ALARM would be armed for (WakeSystem=).
            let slot = shell.scheduler.wakeSlot(now: shell.now)
            shell.emit("wake: " + (slot.map { "\(shell.format.time($0.at)) \($0.identifier)" } ?? "none"))
        default: throw ScriptError("unknown command \(verb)")
        }
        return shell.output
    }

    // MARK: - Commands

    private mutating func seed(_ args: [String]) throws {
        guard !started, let value = UInt64(try Self.only(args, "seed N")) else {
            throw ScriptError("seed N comes first, before any event")
        }
        shell = ScriptShell(seed: value)
    }

    private mutating func simple(_ args: [String], _ event: (Identifier) -> SchedulerEvent) throws {
        let id = try Self.identifier(Self.only(args, "an identifier"))
        shell.send(event(id))
        shell.settle()
    }

    /// `settings Key=Value …`: the whole of agentd.conf's [Agent] section, through its parser.
    private mutating func settings(_ args: [String]) throws {
        let text = "[Agent]\n" + args.joined(separator: "\n") + "\n"
        let result = AgentSettings.parse(Array(text.utf8), path: "agentd.conf", context: privilegedContext,
                                         facts: FakeFacts())
        for diagnostic in result.diagnostics { shell.emit("\(diagnostic)") }
        guard let value = result.value else { return }
        shell.settings = value
        shell.send(.settingsChanged(value))
        shell.settle()
    }

    /// `manifest NAME` with the body of `manifests.d/NAME.manifest` (its [Manifest] keys) as
    /// input lines, through its parser: a budget account.
    private mutating func manifest(_ args: [String], _ input: [String]) throws {
        let name = try Self.only(args, "manifest NAME")
        let text = "[Manifest]\n" + input.joined(separator: "\n") + "\n"
        let result = Manifest.parse(Array(text.utf8), path: "manifests.d/\(name).manifest")
        for diagnostic in result.diagnostics { shell.emit("\(diagnostic)") }
        guard let value = result.value else { return }
        shell.setManifest(name, value)
    }

    /// `calendar +02:00` / `calendar utc`: the local UTC offset changed.
    private mutating func calendar(_ args: [String]) throws {
        let text = try Self.only(args, "calendar +HH:MM")
        let offset: Int
        if text == "utc" {
            offset = 0
        } else {
            let sign = text.hasPrefix("-") ? -1 : 1
            let parts = text.dropFirst().split(separator: ":").compactMap { Int($0) }
            guard text.first == "+" || text.first == "-", parts.count == 2 else {
                throw ScriptError("calendar wants utc or ±HH:MM, not \(text)")
            }
            offset = sign * (parts[0] * 3600 + parts[1] * 60)
        }
        let new = LocalCalendar(utcOffsetSeconds: offset)
        shell.calendar = new
        shell.format.calendar = new
        shell.send(.calendarChanged(new))
        shell.settle()
    }

    /// `runs default|ID manual|SPAN [STOP]`, `runs expired end|stay`.
    private mutating func runs(_ args: [String]) throws {
        guard args.count >= 2 else { throw ScriptError("runs wants: runs default|ID manual|SPAN [STOP]") }
        if args[0] == "expired" {
            shell.expiredRunsEnd = args[1] == "end"
            return
        }
        var plan = RunPlan(duration: args[1] == "manual" ? nil : try Self.span(args[1]))
        if args.count > 2 { plan.outcome = try Self.stop(args[2]) }
        if args[0] == "default" {
            shell.defaultPlan = plan
        } else {
            shell.plans[try Self.identifier(args[0])] = plan
        }
    }

    private mutating func advance(_ args: [String]) throws {
        guard let first = args.first else { throw ScriptError("advance SPAN [show=launches]") }
        let span = try Self.span(first)
        let launchesOnly = args.dropFirst().contains("show=launches")
        shell.launchesOnly = launchesOnly
        let before = shell.launchCount
        shell.advance(to: shell.now + span)
        shell.launchesOnly = false
        if launchesOnly { let count = shell.launchCount - before
            shell.emit("\(count) launch\(count == 1 ? "" : "es")") }
        shell.emit("next: \(nextDeadline())")
    }

    /// `submit ID [job=JOB] [title="…"] [strategy=fail] [request=N]`.
    private mutating func submit(_ args: [String]) throws {
        guard let first = args.first else { throw ScriptError("submit ID [job=JOB] [title=…] [strategy=fail]") }
        let id = try Self.identifier(first)
        var submission = Submission(identifier: id, jobIdentifier: shell.resolve(id), requestID: 0)
        var request: Int64?
        for option in args.dropFirst() {
            let (key, value) = try Self.option(option)
            switch key {
            case "job": submission.jobIdentifier = try Self.identifier(value)
            case "title": submission.title = value
            case "strategy":
                guard let strategy = SubmitStrategy(rawValue: value) else { throw ScriptError("strategy is queue or fail") }
                submission.strategy = strategy
            case "request":
                guard let number = Int64(value) else { throw ScriptError("request wants a number") }
                request = number
            default: throw ScriptError("submit has no option \(key)")
            }
        }
        submission.requestID = request ?? shell.nextRequest
        shell.nextRequest = max(shell.nextRequest, submission.requestID) + 1
        shell.send(.submit(submission))
        shell.settle()
    }

    /// `request ID [earliest=+SPAN] [network=yes|unmetered] [power]`: `agentctl request`.
    private mutating func request(_ args: [String]) throws {
        guard let first = args.first else { throw ScriptError("request ID [earliest=+SPAN] [network=yes|unmetered] [power]") }
        let id = try Self.identifier(first)
        var request = RunRequest(earliestBegin: shell.now)
        for option in args.dropFirst() {
            if option == "power" {
                request.requirements.externalPower = true
                continue
            }
            let (key, value) = try Self.option(option)
            switch key {
            case "earliest":
                guard value.hasPrefix("+") else { throw ScriptError("earliest wants +SPAN") }
                request.earliestBegin = shell.now + (try Self.span(String(value.dropFirst())))
            case "network":
                guard let network = NetworkRequirement.parse(value) else { throw ScriptError("network is yes or unmetered") }
                request.requirements.network = network
            default: throw ScriptError("request has no option \(key)")
            }
        }
        let requestID = shell.nextRequest
        shell.nextRequest += 1
        shell.send(.request(id, request, requestID: requestID))
        shell.settle()
    }

    /// `cancel-request ID|--all`: what the scheduler would withdraw, then the withdrawal.
    private mutating func cancelRequest(_ args: [String]) throws {
        let target = try Self.only(args, "cancel-request ID|--all")
        let ids = target == "--all" ? shell.scheduler.identifiersWithPendingRequests : [try Self.identifier(target)]
        var total = WithdrawnWork()
        for id in ids {
            total = total + shell.scheduler.withdrawable(id)
            shell.send(.cancelPending(id))
        }
        shell.emit(total.description)
        shell.settle()
    }

    /// `cancel ID`: its live runs end `cancelled` (what the daemon's SIGTERM comes to); its
    /// pending request stays.
    private mutating func cancelRuns(_ args: [String]) throws {
        let id = try Self.identifier(Self.only(args, "cancel ID"))
        let targets = shell.runs.filter { $0.value.identifier == id || $0.value.job == id }.keys.sorted()
        if targets.isEmpty { shell.emit("nothing was running") }
        for run in targets { shell.end(run, .cancelled) }
        shell.settle()
    }

    /// `conditions battery=15 discharging`, `ac`, `thermal serious`, `network down`,
    /// `metered yes|no|unknown|checking` (NetworkManager's guess-yes is `yes`),
    /// `pressure memory|cpu|none`, `lowpower on|off`, `resources gpu|none`, `nominal`,
    /// `sleeping` (logind's PrepareForSleep(true)) and `awake` (PrepareForSleep(false)),
    /// `presence active|unknown|checking|away|away/SPAN` (the user's, from logind's idle and
    /// locked hints; `checking` until logind has answered).
    private mutating func conditions(_ args: [String]) throws {
        var c = shell.scheduler.conditions
        var tokens = args[...]
        func value(_ key: String, _ inline: String?) throws -> String {
            if let inline { return inline }
            guard let next = tokens.popFirst() else { throw ScriptError("conditions \(key) wants a value") }
            return next
        }
        while let token = tokens.popFirst() {
            let parts = token.split(separator: "=", maxSplits: 1).map(String.init)
            let key = parts[0], inline = parts.count > 1 ? parts[1] : nil
            switch key {
            case "nominal": c = Conditions()
            case "ac":
                c.power.externalPower = true
                if let battery = c.power.battery { c.power.battery = BatteryLevel(percent: battery.percent, discharging: false) }
            case "discharging", "charging":
                let discharging = key == "discharging"
                if discharging { c.power.externalPower = false }
                c.power.battery = BatteryLevel(percent: c.power.battery?.percent ?? 50, discharging: discharging)
            case "battery":
                guard let percent = Int(try value(key, inline)) else { throw ScriptError("battery wants a percentage") }
                c.power.battery = BatteryLevel(percent: percent, discharging: c.power.battery?.discharging ?? !c.power.externalPower)
            case "thermal":
                let name = try value(key, inline)
                guard let state = ThermalState.allCases.first(where: { $0.description == name }) else {
                    throw ScriptError("thermal is nominal, fair, serious or critical")
                }
                c.thermal = state
            case "network": c.network = try value(key, inline) == "up"
            case "metered":
                let text = try value(key, inline)
                guard let metering = NetworkMetering(rawValue: text) else {
                    throw ScriptError("metered is yes, no, unknown or checking")
                }
                c.metered = metering
            case "pressure":
                let kind = try value(key, inline)
                c.memoryPressure = kind == "memory"
                c.cpuBusy = kind == "cpu"
            case "lowpower": c.lowPower = try value(key, inline) == "on"
            case "sleeping": c.sleeping = true
            case "awake": c.sleeping = false
            case "presence":
                // active | unknown | away (since now) | away/SPAN (since SPAN ago)
                let text = try value(key, inline)
                switch text {
                case "active": c.presence = .active
                case "unknown": c.presence = .unknown
                case "checking": c.presence = .checking
                case "away": c.presence = .away(since: shell.now)
                default:
                    guard text.hasPrefix("away/") else { throw ScriptError("presence is active, unknown, checking, away or away/SPAN") }
                    c.presence = .away(since: shell.now - (try Self.span(String(text.dropFirst(5)))))
                }
            case "resources":
                let names = try value(key, inline)
                c.resources = names == "none" ? [] : Set(names.split(separator: ",").map(String.init))
            default: throw ScriptError("conditions has no \(key)")
            }
        }
        shell.send(.conditionsChanged(c))
        shell.settle()
    }

    private mutating func end(_ args: [String]) throws {
        guard args.count == 2 else { throw ScriptError("end rN STOP, e.g. end r3 failure(1)") }
        let run = try Self.run(args[0])
        guard shell.runs[run] != nil else { throw ScriptError("no live run \(args[0])") }
        let stop = try Self.stop(args[1])
        guard let live = shell.runs.removeValue(forKey: run) else { return }
        shell.send(.runEnded(live.identifier, run, stop))
        shell.settle()
    }

    private mutating func progress(_ args: [String]) throws {
        guard args.count == 2, let fraction = Double(args[1]) else { throw ScriptError("progress rN 0.5") }
        shell.send(.runProgress(try Self.run(args[0]), fraction))
        shell.settle()
    }

    private mutating func pending() {
        let work = shell.scheduler.waiting(now: shell.now)
        if work.isEmpty { shell.emit("(nothing waiting)") }
        for item in work {
            var text = "\(item.identifier) \(item.kind.rawValue)"
            if let submission = item.submission { text += " request=\(submission.requestID)" }
            if let needs = item.request?.requirements, !needs.isEmpty { text += " requires \(needs.description)" }
            shell.emit(text + ": " + shell.format.reason(item.waitingFor))
        }
    }

    private mutating func explain(_ args: [String]) throws {
        let id = try Self.identifier(Self.only(args, "explain ID"))
        let entries = shell.scheduler.explain(id)
        if entries.isEmpty { shell.emit("(no timeline)") }
        for entry in entries { shell.emit(shell.format.timeline(entry)) }
        if let reason = shell.scheduler.waitReason(for: id, now: shell.now) {
            shell.emit("now: waiting: " + shell.format.reason(reason))
        }
    }

    /// `why ID`: only the reason it waits now (`waitReason`), without the timeline.
    private mutating func why(_ args: [String]) throws {
        let id = try Self.identifier(Self.only(args, "why ID"))
        let reason = shell.scheduler.waitReason(for: id, now: shell.now)
        shell.emit(reason.map { "waiting: " + shell.format.reason($0) } ?? "not waiting")
    }

    private mutating func status() {
        let live = shell.runs.keys.sorted().compactMap { run in
            shell.runs[run].map { "\(shell.format.run(run)) \($0.identifier) (\($0.reason.rawValue))\($0.frozen ? " frozen" : "")" }
        }
        shell.emit("live: " + (live.isEmpty ? "none" : live.joined(separator: ", ")))
        let summary = shell.scheduler.waitingSummary(now: shell.now, limit: 3)
        shell.emit("waiting: \(summary.total)" + (summary.work.isEmpty ? "" : ", first "
            + summary.work.map { $0.submission.map { "request \($0.requestID)" } ?? $0.identifier.rawValue }
                .joined(separator: ", ")))
        shell.emit("paused: \(shell.scheduler.isPaused ? "yes" : "no")")
        if shell.manifests.isEmpty {
            shell.emit("budget: \(shell.scheduler.budgetRemaining(now: shell.now)) of \(shell.settings.dailyBudget) left")
        } else {
            for budget in shell.scheduler.budgetStandings(now: shell.now) {
                shell.emit("budget of \(budget.account): \(budget.used)/\(budget.limit), refills \(shell.format.time(budget.refillsAt))")
            }
        }
        shell.emit("conditions: " + shell.format.conditions(shell.scheduler.conditions))
        shell.emit("next: \(nextDeadline())")
    }

    private mutating func database() {
        guard let db = shell.database else {
            shell.emit("(nothing persisted)")
            return
        }
        let f = shell.format
        for id in db.recordedIdentifiers.sorted() {
            let row = db.record(for: id)
            var parts: [String] = []
            if let t = row.lastRunStart { parts.append("last-run \(f.time(t))") }
            if let t = row.lastSuccess { parts.append("last-success \(f.time(t))") }
            if let n = row.consecutiveFailures { parts.append("failures \(n)") }
            if row.disabled { parts.append("disabled") }
            if row.pendingTrigger { parts.append("pending-trigger") }
            if let t = row.pendingRetry { parts.append("pending-retry \(f.time(t))") }
            if row.pendingChained { parts.append("pending-chained") }
            if let t = row.lastTriggerLaunch { parts.append("last-trigger-launch \(f.time(t))") }
            if let request = row.pendingRequest { parts.append("pending-request " + f.request(request)) }
            shell.emit("\(id): " + parts.joined(separator: ", "))
        }
        shell.emit("budget: \(db.budgetDay) spent \(db.budgetSpent)")
        for (name, ledger) in db.budgetLedgers.sorted(by: { $0.key < $1.key }) {
            shell.emit("budget of \(name): \(ledger.day) spent \(ledger.spent)")
        }
        shell.emit("paused: \(db.paused ? "yes" : "no")")
        for submission in db.submissions {
            shell.emit("queued: request \(submission.requestID) \(submission.identifier)")
        }
    }

    private func nextDeadline() -> String {
        shell.scheduler.nextDeadline.map(shell.format.time) ?? "none (asleep)"
    }

    // MARK: - Job definitions

    /// The input of `jobs`/`update`: one-line definitions `ID Key=Value …` and `[Job]` blocks
    /// in unit-file syntax, each parsed by the real job-file parser. `Exec=` defaults to
    /// `/usr/lib/agentd/plugins/ID`.
    private mutating func jobDefinitions(_ input: [String]) throws -> [JobDefinition] {
        var files: [[String]] = []
        for line in input {
            let firstWord = line.split(separator: " ").first.map(String.init) ?? ""
            if line.hasPrefix("[") {
                files.append([line])
            } else if !firstWord.contains("="), !line.hasPrefix("#"), !line.hasPrefix(";"), !firstWord.isEmpty {
                let words = try Self.words(line)
                files.append(["[Job]", "Identifier=\(words[0])"] + words.dropFirst())
            } else if files.isEmpty {
                throw ScriptError("job input starts with [Job] or an identifier, not \(line)")
            } else {
                files[files.count - 1].append(line)
            }
        }
        var definitions: [JobDefinition] = []
        for (index, var lines) in files.enumerated() {
            if !lines.contains(where: { $0.hasPrefix("Exec=") }) {
                let name = lines.first { $0.hasPrefix("Identifier=") }.map { String($0.dropFirst(11)) } ?? "job"
                lines.insert("Exec=/usr/lib/agentd/plugins/\(name)", at: 1)
            }
            let text = lines.joined(separator: "\n") + "\n"
            let result = JobDefinition.parse(Array(text.utf8), path: "jobs.d/job\(index + 1).job",
                                             context: privilegedContext, facts: FakeFacts())
            for diagnostic in result.diagnostics { shell.emit("\(diagnostic)") }
            if let value = result.value { definitions.append(value) }
        }
        return definitions
    }

    // MARK: - Words

    static func words(_ line: String) throws -> [String] { try ScriptFile.words(line) }

    static func only(_ args: [String], _ usage: String) throws -> String {
        guard args.count == 1 else { throw ScriptError("wants exactly one argument: \(usage)") }
        return args[0]
    }

    static func option(_ word: String) throws -> (String, String) {
        let parts = word.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { throw ScriptError("\(word) is not KEY=VALUE") }
        return (parts[0], parts[1])
    }

    static func identifier(_ text: String) throws -> Identifier {
        guard let id = Identifier(rawValue: text) else { throw ScriptError("\(text) is not an identifier") }
        return id
    }

    static func span(_ text: String) throws -> Duration {
        guard let span = TimeSpan.parse(text) else { throw ScriptError("\(text) is not a time span (30s, 5min, 1h30min)") }
        return span
    }

    /// `r3` or `r000003`.
    static func run(_ text: String) throws -> RunID {
        guard text.hasPrefix("r"), let number = UInt64(text.dropFirst()) else {
            throw ScriptError("\(text) is not a run (r3)")
        }
        return RunID(number)
    }

    /// A stop reason as stored (`failure(exit 1)`) or short (`failure(1)`, `crashed(9)`).
    static func stop(_ text: String) throws -> StopReason {
        if let stop = StopReason(parsing: text) { return stop }
        for (name, make) in [("failure", { StopReason.failure(exitStatus: $0) }), ("crashed", { StopReason.crashed(signal: $0) })] {
            if text.hasPrefix(name + "("), text.hasSuffix(")"),
               let number = Int32(text.dropFirst(name.count + 1).dropLast())
            {
                return make(number)
            }
        }
        throw ScriptError("\(text) is not a stop reason (success, failure(1), expired(power), crashed(9), cancelled)")
    }
}

extension ScriptShell {
    /// `jobs` (the full set) or `update` (these changed or were added).
    mutating func setJobs(_ definitions: [JobDefinition], replacing: Bool) {
        if replacing {
            jobs = [:]
            for definition in definitions { jobs[definition.identifier] = definition }
            send(.jobsChanged(definitions))
        } else {
            for definition in definitions { jobs[definition.identifier] = definition }
            send(.jobsUpdated(changed: definitions, removed: []))
        }
        settle()
    }

    mutating func removeJobs(_ ids: [Identifier]) {
        for id in ids { jobs[id] = nil }
        send(.jobsUpdated(changed: [], removed: ids))
        settle()
    }
}
