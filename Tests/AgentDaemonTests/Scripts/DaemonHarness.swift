// SPDX-License-Identifier: Apache-2.0
import AgentTestSupport
import AgentCore
import AgentProtocol
import AgentStore
@testable import AgentDaemon
import AgentSystem
import Foundation

/// The daemon's shell — scheduler driver, run supervisor, recorder, state writer, event bus —
/// on a virtual loop with virtual ports, driven by a daemon script; the state database is a
/// real SQLite file in a temporary directory. After every command the shell's rules are
/// checked (`violations`).
final class DaemonHarness {
    /// What `Condition…=` keys see: the paths a script said exist.
    var conditionFacts = TableConditionFacts()
    let trace = Trace()
    let directory: String
    let loop = VirtualEventLoop()
    let catalogue = VirtualCatalogue()
    private(set) lazy var daemon = Daemon(harness: self)
    var violations: [String] = []
    /// Answers sent per request, to check that each request has exactly one.
    private var answered: [String: Int] = [:]
    private var clients: [String: Client] = [:]
    private var nextRequest = 0
    private var nextSubscriber: UInt64 = 1
    private var ended: [RunID: Int] = [:]

    /// One agentctl connection: the server hands it its next request only after the answer to
    /// the one before.
    final class Client {
        var waiting: [() -> Void] = []
        var busy = false
        var subscriber: VirtualSubscriber?
    }

    /// The components one agent process holds; `restart` builds new ones on the same state.
    final class Daemon {
        let commits: VirtualCommits
        let syncs: VirtualSyncs
        let launcher: VirtualLauncher
        let state: StateDirectory
        let writer: StateWriter
        let events: EventBus
        let runs: RunSupervisor
        let scheduling: SchedulerDriver

        init(harness: DaemonHarness) {
            let trace = harness.trace, loop = harness.loop
            commits = VirtualCommits(trace: trace)
            syncs = VirtualSyncs(trace: trace)
            syncs.commits = commits
            launcher = VirtualLauncher(trace: trace)
            state = StateDirectory(path: harness.directory)
            writer = StateWriter(state: state, loop: loop, log: Logger(), commits: commits, syncs: syncs)
            events = EventBus(loop: loop, wallClock: { loop.clock.realtimeMilliseconds })
            runs = RunSupervisor(loop: loop, log: Logger(), state: state, stateWriter: writer, launcher: launcher,
                                 readClock: { loop.clock }, logsLateness: false)
            scheduling = SchedulerDriver(loop: loop, log: Logger(), catalogue: harness.catalogue, state: state,
                                         stateWriter: writer, events: events, runs: runs,
                                         time: LocalTimeFollower(loop: loop, kernelLoop: nil, log: Logger()),
                                         seed: 42, offsetRule: nil, machineID: "", logsDecisionTimes: false)
            runs.conditionFacts = { [unowned harness] in harness.conditionFacts }
            // The agent's own wiring of runs (Agent.wire), with each result written down.
            runs.report(to: events, scheduling: scheduling, ended: { [unowned harness] end in
                harness.ended[end.run, default: 0] += 1
                trace.emit("result \(end.run): \(end.stop)")
            })
        }

        func start() {
            if state.open() {
                if let highest = runs.recoverUnfinishedRuns() { scheduling.numberRuns(after: highest) }
            } else {
                scheduling.numberRunsFromClock()
            }
            scheduling.start()
        }
    }

    init() {
        directory = NSTemporaryDirectory() + "agentd-script-\(UUID().uuidString)"
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    // MARK: commands

    func run(_ command: String, input: [String]) throws -> [String] {
        trace.lines = []
        let words = try Self.words(command)
        guard let verb = words.first else { return [] }
        let args = Array(words.dropFirst())
        let options = Dictionary(args.filter { $0.contains("=") }.map {
            let parts = $0.split(separator: "=", maxSplits: 1).map(String.init)
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }, uniquingKeysWith: { $1 })
        let plain = args.filter { !$0.contains("=") }
        let client = options["client"] ?? "c1"
        switch verb {
        case "jobs": try setJobs(input)
        case "start": daemon.start()
        case "submit": request(client) { self.submit(try self.identifier(plain), options: options, client: client) }
        case "trigger": request(client) { self.change(client, .trigger(try self.identifier(plain)), "triggered") }
        case "pause": request(client) { self.change(client, .setPaused(true), "paused") }
        case "resume": request(client) { self.change(client, .setPaused(false), "resumed") }
        case "cancel": request(client) { self.cancel(try self.identifier(plain), client: client) }
        case "history": request(client) { self.history(client) }
        case "subscribe":
            subscribe(plain.first ?? client, kinds: options["kinds"].map { $0.split(separator: ",").map(String.init) },
                      jobs: options["jobs"].map { $0.split(separator: ",").map(String.init) })
        case "stop-reading": clients[plain.first ?? client]?.subscriber?.reading = false
        case "stdout", "stderr": try line(verb, plain, command: command)
        case "stdout-burst": try burst(command)
        case "exit": try process(plain).events.onMainExit(.exited(Int32(plain.last ?? "0") ?? 0))
        case "killed": try process(plain).events.onMainExit(.signaled(Int32(plain.last ?? "9") ?? 9))
        case "gone": try process(plain).events.onGone()
        case "end":
            let process = try process(plain)
            process.events.onMainExit(.exited(Int32(plain.last ?? "0") ?? 0))
            process.events.onGone()
        case "advance": loop.advance(by: try span(plain.first))
        case "disk": daemon.commits.full = plain.first == "full"
        case "retry": daemon.writer.retry()
        case "writes":
            switch plain.first {
            case "hold": daemon.commits.hold = true
            default: daemon.commits.hold = false; daemon.commits.complete()
            }
        case "sync":
            switch plain.first {
            case "hold": daemon.syncs.hold = true
            case "fail": daemon.syncs.complete(failing: true, asked: true)
            default: daemon.syncs.hold = false; daemon.syncs.complete(asked: true)
            }
        case "refuse-plugin": daemon.launcher.refused.insert(plain.first ?? "")
        case "path":
            // `path /x exists|missing`: the machine's file system as Condition…= sees it.
            guard let path = plain.first else { throw ScriptError("needs a path") }
            if plain.last == "missing" { conditionFacts.paths.remove(path) } else { conditionFacts.paths.insert(path) }
        case "expire": try expire(plain)
        case "stop": stop()
        case "restart": restart()
        case "db": try database()
        case "status": status()
        default: throw ScriptError("unknown command \(verb)")
        }
        // What is due now fires in the next iteration, as on the real loop.
        loop.advance(by: .zero)
        if !daemon.commits.hold { daemon.commits.complete() }
        if !daemon.syncs.hold { daemon.syncs.complete() }
        check()
        return trace.lines
    }

    private func identifier(_ plain: [String]) throws -> Identifier {
        guard let text = plain.first, let id = Identifier(rawValue: text) else { throw ScriptError("needs an identifier") }
        return id
    }

    private func span(_ text: String?) throws -> Duration {
        guard let text, let span = TimeSpan.parse(text) else { throw ScriptError("needs a time span") }
        return span
    }

    private func runID(_ text: String?) throws -> RunID {
        guard let text, text.hasPrefix("r"), let number = UInt64(text.dropFirst()) else { throw ScriptError("needs rN") }
        return RunID(number)
    }

    private func process(_ plain: [String]) throws -> VirtualProcess {
        let id = try runID(plain.first)
        guard let process = daemon.launcher.processes[id] else { throw ScriptError("no process for \(id)") }
        return process
    }

    private func setJobs(_ input: [String]) throws {
        for (index, line) in input.enumerated() {
            let words = try Self.words(line)
            guard let name = words.first else { continue }
            var lines = ["[Job]", "Identifier=\(name)"] + words.dropFirst()
            if !lines.contains(where: { $0.hasPrefix("Exec=") }) { lines.append("Exec=/usr/lib/agentd/plugins/\(name)") }
            let text = lines.joined(separator: "\n") + "\n"
            let result = JobDefinition.parse(Array(text.utf8), path: "jobs.d/job\(index + 1).job",
                                             context: ConfigContext(agentUID: 0, agentUserName: "root", privileged: true),
                                             facts: ScriptFacts())
            for diagnostic in result.diagnostics { trace.emit("\(diagnostic)") }
            if let job = result.value { catalogue.jobs[job.identifier] = job }
        }
        if daemon.scheduling.isStarted { daemon.scheduling.jobsChanged() }
    }

    // MARK: requests

    private func request(_ name: String, _ body: @escaping () throws -> Void) {
        let client = clients[name] ?? Client()
        clients[name] = client
        let run = { [unowned self] in
            client.busy = true
            do { try body() } catch { self.answer(name, "refused: \(error)") }
        }
        if client.busy {
            client.waiting.append(run)
            trace.emit("request of \(name) waits for its previous answer")
        } else {
            run()
        }
    }

    /// Sends `text` to `client`: its next request, if any, is handed over after it.
    private func answer(_ name: String, _ text: String, commits: UInt64 = 0) {
        if commits > 0, daemon.syncs.synced < commits {
            violations.append("an answer went out before its sync: \(name) \(text) (commit \(commits), synced \(daemon.syncs.synced))")
        }
        // The state directory is a fresh temporary one: STATE, as the virtual space check says.
        trace.emit("answer \(name): " + text.replacingOccurrences(of: directory, with: "STATE"))
        guard let client = clients[name] else { return }
        client.busy = false
        if !client.waiting.isEmpty {
            let next = client.waiting.removeFirst()
            next()
        }
    }

    private func text(of response: ControlResponse) -> String {
        switch response {
        case .success(let answer): (try? answer.done().message) ?? "ok"
        case .failure(let error): "refused: \(error.message)"
        }
    }

    private func submit(_ id: Identifier, options: [String: String], client: String) {
        let writer = daemon.writer
        let before = writer.requestCommits
        let job = catalogue.jobs.keys.filter { id.rawValue == $0.rawValue || id.rawValue.hasPrefix($0.rawValue + ".") }
            .max { $0.rawValue.count < $1.rawValue.count } ?? id
        let submission = Submission(identifier: id, jobIdentifier: job, title: options["title"], requestID: 0)
        daemon.scheduling.submit(submission, reply: { [unowned self] outcome, _ in
            let response: ControlResponse = switch outcome {
            case .accepted(let position): .success(.done(message: "accepted (position \(position))"))
            case .requested(let replaced): .success(.done(message: replaced ? "requested (replaced)" : "requested"))
            case .refused(let why): .failure(.unavailable, "\(why)")
            }
            let commits = writer.requestCommits
            if case .accepted = outcome, commits == before {
                self.violations.append("submission of \(id) accepted with no synced write of it (accepted means durable)")
            }
            writer.acknowledge(response, commitsBefore: before) { self.answer(client, self.text(of: $0), commits: commits) }
        }, unwritable: { [unowned self] why in self.answer(client, "refused: \(why)") })
    }

    private func change(_ client: String, _ event: SchedulerEvent, _ done: String) {
        let writer = daemon.writer
        let before = writer.requestCommits
        let response: ControlResponse
        do {
            try daemon.scheduling.request(event)
            response = .success(.done(message: done))
        } catch {
            response = .failure(.unavailable, error.description)
        }
        let commits = writer.requestCommits
        writer.acknowledge(response, commitsBefore: before) { self.answer(client, self.text(of: $0), commits: commits) }
    }

    private func cancel(_ id: Identifier, client: String) {
        let writer = daemon.writer
        let before = writer.requestCommits
        daemon.scheduling.handle(.cancelPending(id))
        let cancelled = daemon.runs.runs(of: id).filter { daemon.runs.cancel($0.state.id) }
        let response = ControlResponse.success(.done(message: cancelled.isEmpty ? "no live run of \(id)"
            : "cancelling " + cancelled.map(\.state.id.description).joined(separator: ", ")))
        let commits = writer.requestCommits
        writer.acknowledge(response, commitsBefore: before) { self.answer(client, self.text(of: $0), commits: commits) }
    }

    /// `subscribe NAME [kinds=run-output,run-ended] [jobs=ID,…]`: every event, or those kinds
    /// only, or those of those jobs (`EventFilter.jobs`).
    private func subscribe(_ name: String, kinds: [String]? = nil, jobs: [String]? = nil) {
        let client = clients[name] ?? Client()
        clients[name] = client
        let subscriber = VirtualSubscriber(id: nextSubscriber, name: name, trace: trace)
        nextSubscriber += 1
        client.subscriber = subscriber
        let after = daemon.events.subscribe(subscriber, filter: EventFilter(kinds: kinds, jobs: jobs))
        trace.emit("answer \(name): subscribed after \(after)")
    }

    // MARK: plugin and agent

    private func line(_ stream: String, _ plain: [String], command: String) throws {
        let process = try process(plain)
        let text = command.split(separator: " ", maxSplits: 2).dropFirst(2).first.map(String.init) ?? ""
        Array(text.utf8).withUnsafeBufferPointer { bytes in
            process.events.line(stream == "stdout" ? .stdout : .stderr, bytes, wasCut: false)
        }
    }

    /// `stdout-burst N rK LINE`: N copies of LINE in one read of the plugin's output, as a
    /// plugin flooding directives gets them read.
    private func burst(_ command: String) throws {
        let words = command.split(separator: " ", maxSplits: 3).map(String.init)
        guard words.count == 4, let count = Int(words[1]) else { throw ScriptError("stdout-burst N rK LINE") }
        let process = try process([words[2]])
        Array(words[3].utf8).withUnsafeBufferPointer { bytes in
            for _ in 0..<count { process.events.line(.stdout, bytes, wasCut: false) }
        }
    }

    private func expire(_ plain: [String]) throws {
        let id = try runID(plain.first)
        trace.emit(daemon.runs.expire(id, reason: .simulated) ? "expiring \(id)" : "\(id) is not expiring")
    }

    /// SIGTERM to the agent: nothing new starts, live runs get their teardown.
    private func stop() {
        daemon.events.agentStopping()
        daemon.scheduling.handle(.agentStopping)
        daemon.runs.onIdle = { [unowned self] in self.trace.emit("agent stops: no live run") }
        if daemon.runs.isIdle { trace.emit("agent stops: no live run") } else { daemon.runs.stopAll() }
    }

    /// The agent is killed (SIGKILL) and started again on the same state: what was live is
    /// recovered from the database.
    private func restart() {
        let old = daemon
        old.runs.onRunEnded = nil
        old.runs.onRunStarted = nil
        // SIGKILL ends the process: its database lock goes with it, and what its writer had
        // not written yet.
        old.commits.drop()
        old.state.database?.close()
        daemon = Daemon(harness: self)
        clients = [:]
        trace.emit("agent restarted")
        daemon.start()
    }

    /// `history`: the runs as the control socket's `history` reads them, once the writes handed
    /// over before it are in (`StateWriter.afterHandedOver`).
    private func history(_ client: String) {
        daemon.writer.afterHandedOver { [unowned self] in
            let runs = (try? daemon.state.reading({ try $0.history(identifier: nil, limit: 100) })) ?? nil
            let text = (runs ?? []).reversed().map { "\($0.runID) \($0.stopReason ?? "live")" }
            answer(client, "history: " + text.joined(separator: ", "))
        }
    }

    private func database() throws {
        guard let runs = try daemon.state.reading({ try $0.history(identifier: nil, limit: 100) }) else {
            throw ScriptError("the state is not open")
        }
        for run in runs.reversed() {
            var text = "run \(run.runID) \(run.identifier) \(run.reason): \(run.stopReason ?? "live")"
            if run.stopReason == nil, let group = run.processGroup { text += " process-group=\(group)" }
            if let title = run.title { text += " title=\"\(title)\"" }
            trace.emit(text)
        }
        trace.emit("unwritten: \(daemon.writer.unwrittenCount)")
    }

    private func status() {
        for run in daemon.runs.summaries() {
            var text = "live \(run.runID) \(run.identifier)"
            if let progress = run.progress { text += " progress=\(Int(progress * 100))%" }
            if let stopping = run.stopping { text += " stopping=\(stopping)" }
            if let paused = run.paused { text += " paused=\(paused)" }
            trace.emit(text)
        }
        trace.emit("timers: \(loop.timerCount); state: \(daemon.writer.problem?.refusal.prefix(24) ?? "writable")")
    }

    // MARK: invariants

    /// The shell's rules, after every command.
    private func check() {
        for (run, count) in ended where count > 1 {
            violations.append("run \(run) has \(count) results (one result per run)")
        }
        // Once the writer has written what it was handed (a write and its completion are two
        // steps) and nothing waits in the queue.
        if daemon.writer.unwrittenCount == 0, daemon.writer.inFlight == 0 {
            let recorded = { (run: RunID) -> Bool in
                ((try? self.daemon.state.reading { try $0.run(run.description) }) ?? nil) != nil
            }
            for run in daemon.launcher.spawned where !recorded(run) {
                violations.append("run \(run) was spawned but is not recorded")
            }
        }
        for (name, client) in clients {
            if client.waiting.count > 16 {
                violations.append("client \(name) has \(client.waiting.count) requests waiting (nothing unbounded per client)")
            }
            if let subscriber = client.subscriber, subscriber.backlog > VirtualSubscriber.backlogLimit {
                violations.append("subscriber \(name) holds \(subscriber.backlog) unsent events (nothing unbounded per client)")
            }
        }
    }

    static func words(_ line: String) throws -> [String] { try ScriptFile.words(line) }
}

/// Every plugin path is a root-owned executable and every user exists.
struct ScriptFacts: SystemFacts {
    func plugin(at path: String) -> PluginStatus { .present(FileFacts(ownerUID: 0, mode: 0o100755), executable: true) }
    func userExists(_ name: String) -> Bool { true }
    func userName(uid: UInt32) -> String? { uid == 0 ? "root" : "user\(uid)" }
}

/// `Condition…=` facts from a table: only the listed paths exist (as directories and
/// non-empty executable files alike); no virtualization; on external power.
struct TableConditionFacts: ConditionFacts {
    var paths: Set<String> = []
    func pathExists(_ path: String) -> Bool { paths.contains(path) }
    func globMatches(_ pattern: String) -> Bool { paths.contains(pattern) }
    func isDirectory(_ path: String) -> Bool { paths.contains(path) }
    func directoryIsNotEmpty(_ path: String) -> Bool { paths.contains(path) }
    func fileIsNotEmpty(_ path: String) -> Bool { paths.contains(path) }
    func fileIsExecutable(_ path: String) -> Bool { paths.contains(path) }
    var virtualization: Virtualization { .none }
    var onACPower: Bool { true }
    var capabilityBoundingSet: UInt64 { .max }
}
