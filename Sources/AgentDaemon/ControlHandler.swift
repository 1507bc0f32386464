// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import AgentStore
import AgentSystem
import Glibc

/// Turns control-socket requests into answers. Reads go to anyone who can connect, redacted for
/// who they are; changes are checked against the peer's credentials (SO_PEERCRED) before
/// anything happens (`AccessPolicy`, `ControlHandler+Access.swift`).
struct ControlHandler {
    let catalogue: JobCatalogue
    let scheduling: SchedulerDriver
    let runs: RunSupervisor
    let conditions: ConditionMonitor
    let state: StateDirectory
    let stateWriter: StateWriter
    let events: EventBus
    let metrics: MetricsCollector
    let loop: any EventLooping
    /// What `status` says about the agent itself.
    let about: AgentFacts

    /// Who may do what (DESIGN §9).
    var access: AccessPolicy { AccessPolicy(catalogue: catalogue, runs: runs, userMode: about.options.userMode) }

    func handle(_ request: ControlServer.Request) {
        let decoded: ControlRequest
        do {
            decoded = try MessageCoding.decode(ControlRequest.self, from: request.bytes)
        } catch let refusal as ControlError {
            // Well-formed, but not what its verb takes: the field is named.
            send(.failure(refusal), to: request)
            return
        } catch {
            let verbs = ControlCommand.allCases.map(\.rawValue).joined(separator: ", ")
            if let problem = RequestDecodingProblem.describe(error), !problem.hasPrefix("\"command\"") {
                // Well-formed, with a field that is not what it should be: that field is named.
                send(.failure(.badRequest, "malformed request: \(problem) (docs/agentctl.md, The control socket)"), to: request)
            } else {
                send(.failure(.badRequest, "malformed request: expected one JSON object per line with a \"command\" field (\(verbs))"), to: request)
            }
            return
        }
        if let target = decoded.target, let id = Identifier(rawValue: target), catalogue.registry.job(id) == nil {
            // A script just dropped in waits to settle; asked for by name, it is read now.
            catalogue.readPendingScript(for: id)
        }
        let commitsBefore = stateWriter.requestCommits
        let policy = access
        do {
            try policy.check(decoded.command, peer: request.peer)
        } catch {
            send(.failure(.accessDenied, error.description), to: request)
            return
        }
        let peer = PeerContext(policy: policy, connection: request.connection)
        if decoded.command.access == .identifier, let refusal = identifierRefusal(decoded, peer) {
            send(refusal, to: request)
            return
        }
        switch decoded {
        case .submit(let target, let details):
            // Answered when the scheduler has decided (at once, in practice).
            submit(target, details) { acknowledge($0, to: request, commitsBefore: commitsBefore) }
            return
        case .subscribe(let filter):
            subscribe(filter, request, peer)
            return
        case .history, .logs:
            // Run records are read once the writes already handed over are in: a run whose end
            // was logged and published is never read back as still running.
            stateWriter.afterHandedOver { [self] in respond(to: decoded, request, peer, commitsBefore: commitsBefore) }
            return
        default:
            break
        }
        respond(to: decoded, request, peer, commitsBefore: commitsBefore)
    }

    private func respond(to decoded: ControlRequest, _ request: ControlServer.Request, _ peer: PeerContext,
                         commitsBefore: UInt64) {
        var response = answer(decoded, peer)
        // Every read answer passes here: what a reader may not see of a job is taken out.
        if decoded.command.access == .read, let redaction = peer.redaction {
            response = response.map(redaction.apply)
        }
        acknowledge(response, to: request, commitsBefore: commitsBefore)
    }

    /// Sends the answer to a request that committed a change only once that change is synced
    /// (off the loop: AcknowledgementSync); any other answer at once.
    private func acknowledge(_ response: ControlResponse, to request: ControlServer.Request, commitsBefore: UInt64) {
        stateWriter.acknowledge(response, commitsBefore: commitsBefore) { send($0, to: request) }
    }

    /// Events pass through the subscriber's own redaction (`EventBus`): a reader who may not
    /// see a job's details gets its events without titles and status text.
    private func subscribe(_ filter: EventFilter, _ request: ControlServer.Request, _ peer: PeerContext) {
        let after = events.subscribe(request.connection, filter: filter,
                                     seesDetails: peer.policy.liveRedaction(for: peer.requester))
        send(.success(.subscribed(sequence: after)), to: request)
    }

    private func send(_ response: ControlResponse, to request: ControlServer.Request) {
        let line = (try? MessageCoding.encodeLine(ControlResponseFields(response)))
            ?? Array(#"{"ok":false,"error":{"code":"internal","message":"cannot encode response"}}"#.utf8)
        request.respond(line)
    }

    private func answer(_ request: ControlRequest, _ peer: PeerContext) -> ControlResponse {
        switch request {
        case .status: return .success(.status(statusReport()))
        case .list(let page): return list(page, maxBytes: AnswerPaging.maxBytes(privileged: peer.connection.isPrivileged))
        case .history(let query): return history(query)
        case .cancel(let target): return cancel(target)
        case .request(let target, let options): return requestRun(target, options)
        case .cancelRequest(let scope): return cancelRequest(scope, mayWithdraw: { peer.mayAct(for: $0) })
        case .simulateLaunch(let target): return simulateLaunch(target)
        case .simulateExpire(let target): return simulateExpire(target)
        case .pending(let target, let page):
            return pending(target, page: page, maxBytes: AnswerPaging.maxBytes(privileged: peer.connection.isPrivileged))
        case .explain(let target): return explain(target)
        case .trigger(let target): return trigger(target)
        case .enable(let target): return setEnabled(target, true)
        case .disable(let target): return setEnabled(target, false)
        case .pause: return setPaused(true)
        case .resume: return setPaused(false)
        case .submit: return .failure(.internal, "submit is answered asynchronously")
        case .subscribe: return .failure(.internal, "subscribe is answered by the event bus")
        case .runIfStale(let target, let maxAge): return runIfStale(target, maxAge: maxAge)
        case .lowpower(let mode): return lowPower(mode)
        case .resources: return .success(.resources(gpus: conditions.gpus, inputs: conditions.inputs))
        case .metrics(let page):
            return metricsAnswer(page, maxBytes: AnswerPaging.maxBytes(privileged: peer.connection.isPrivileged))
        case .logs(let query): return logs(query)
        case .run(let target): return runNow(target)
        }
    }

    // MARK: scheduling requests

    /// Waiting work for people: only the first `limit` entries are formatted (status shows 100 of
    /// possibly thousands).
    func pendingSummaries(filter: String? = nil, limit: Int = Int.max, from work: [PendingWork]? = nil) -> [PendingSummary] {
        let driver = scheduling
        let now = driver.now
        // With a filter, one identifier's entries, not every job's sorted and then filtered
        // (O(n log n) with 10,000 jobs, for each trigger, cancel, `pending ID` and `explain ID`).
        let entries = work ?? filter.map { text in
            Identifier(rawValue: text).map { driver.scheduler.waiting(for: $0, now: now) } ?? []
        } ?? driver.scheduler.waiting(now: now)
        return entries.lazy.prefix(limit).map { Self.summary(of: $0, now: now) }
    }

    /// A waiting entry as `pending` and `status` show it.
    static func summary(of work: PendingWork, now: SchedulerTime) -> PendingSummary {
        PendingSummary(identifier: (work.submission?.identifier ?? work.identifier).rawValue,
                       kind: work.kind,
                       waitingFor: work.waitingFor.description + (work.waitingFor.time.map {
                           reasonTime(work.waitingFor, $0.seconds, now: now.seconds)
                       } ?? ""),
                       earliestBegin: work.earliestBegin?.seconds ?? work.waitingFor.time?.seconds,
                       title: work.submission?.title, subtitle: work.submission?.subtitle,
                       request: work.request.map(options),
                       reason: .known(work.waitingFor.code), until: work.waitingFor.time?.seconds)
    }

    private func trigger(_ target: String) -> ControlResponse {
        switch registeredJob(target) {
        case .failure(let error):
            return .failure(error)
        case .success(let job):
            guard job.kind != .continued else {
                return .failure(.badRequest, "\(job.identifier) is a continued job: a person starts it with agentctl submit \(job.identifier)")
            }
            let before = Set(runs.runs(of: job.identifier).map(\.state.id))
            do { try scheduling.request(.trigger(job.identifier)) } catch { return .failure(.unavailable, error.description) }
            return triggerAnswer(job, runsBefore: before)
        }
    }

    private func setEnabled(_ target: String, _ enabled: Bool) -> ControlResponse {
        switch registeredJob(target) {
        case .failure(let error):
            return .failure(error)
        case .success(let job):
            do { try scheduling.request(.setEnabled(job.identifier, enabled)) } catch { return .failure(.unavailable, error.description) }
            return .success(.done(message: enabled ? "enabled \(job.identifier)" : "disabled \(job.identifier): it will not run until agentctl enable \(job.identifier)"))
        }
    }

    /// The foreground fallback: run now only if the last success is older than the limit.
    private func runIfStale(_ target: String, maxAge: Duration) -> ControlResponse {
        switch registeredJob(target) {
        case .failure(let error):
            return .failure(error)
        case .success(let job):
            // DESIGN §4: continued work is started by a submission only, as run and trigger say.
            guard job.kind != .continued else {
                return .failure(.badRequest, "\(job.identifier) is a continued job: a person starts it with agentctl submit \(job.identifier)")
            }
            guard state.database != nil else {
                return .failure(.unavailable, state.problem ?? "the state database is not open")
            }
            let last: Int64?
            do { last = try state.reading { try $0.lastSuccess(identifier: job.identifier.rawValue) } ?? nil } catch {
                return readFailed("reading the last success", error)
            }
            let nowMs = loop.clock.realtimeMilliseconds
            if let last, Duration.milliseconds(nowMs - last) <= maxAge {
                return .success(.done(message: "fresh: \(job.identifier) last succeeded \(Self.span((nowMs - last) / 1000)) ago; not run"))
            }
            switch launchNow(job, reason: .triggered) {
            case .failure(let error): return .failure(error)
            case .success(let id):
                let why = last.map { "last success \(Self.span((nowMs - $0) / 1000)) ago" } ?? "no success on record"
                return .success(.done(message: "stale (\(why)): started run \(id) of \(job.identifier)", runID: id.description))
            }
        }
    }

    private func setPaused(_ paused: Bool) -> ControlResponse {
        do { try scheduling.request(.setPaused(paused)) } catch { return .failure(.unavailable, error.description) }
        return .success(.done(message: paused ? "paused: discretionary work waits until agentctl resume (continued work still runs)" : "resumed"))
    }

    private func explain(_ target: String) -> ControlResponse {
        guard let id = Identifier(rawValue: target) else {
            return .failure(.badRequest, Self.notAnIdentifier(target))
        }
        let registry = catalogue.registry
        let file = registry.job(id)
        let refused = file == nil ? registry.jobFileWithErrors(id) : nil
        let timeline = scheduling.scheduler.explain(id)
        // A dynamic identifier its job accepts is known before anything happened to it.
        let accepting = registry.job(accepting: id)
        guard file != nil || refused != nil || !timeline.isEmpty || accepting != nil else {
            return .failure(.notFound, noJob(id))
        }
        var records = timeline.map { TimelineRecord(time: $0.time.seconds, event: $0.description) }
        if let why = Self.cannotRun(file: file, refused: refused, accepted: accepting != nil) {
            records.append(.notRegistered(why, at: loop.clock.realtimeSeconds))
        }
        var waiting = pendingSummaries(filter: target)
        // A job due for nothing still says what holds it (disabled, restricted), as list does.
        if waiting.isEmpty, let held = heldSummary(id) { waiting = [held] }
        return .success(.explanation(timeline: records, pending: waiting, kind: accepting?.kind,
                                     chainedBy: registry.jobs(chainingTo: id).map(\.rawValue)))
    }

    /// Why an identifier cannot run now, for explain's last line: its file in error, not
    /// permitted, a duplicate, or — when no job accepts it — its file gone (its timeline
    /// outlives the file); nil when it can.
    private static func cannotRun(file: RegisteredJob?, refused: JobFileWithErrors?, accepted: Bool) -> String? {
        if let file {
            switch file.state {
            case .registered: return nil
            case .notPermitted(let reason): return reason
            case .duplicate(let other): return "duplicate of \(other)"
            }
        }
        if let refused { return refused.explanation }
        return accepted ? nil : "no job file defines it any more (agentctl list shows the jobs)"
    }

    /// What holds a registered job that nothing is pending for (`disabled`, `restricted`), as
    /// `list` shows it; nil when nothing does.
    private func heldSummary(_ id: Identifier) -> PendingSummary? {
        guard let job = catalogue.registry.job(id), case .registered = job.state else { return nil }
        let driver = scheduling
        guard let reason = driver.scheduler.waitReason(for: id, now: driver.now) else { return nil }
        if case .notDue = reason { return nil }
        return PendingSummary(identifier: id.rawValue, kind: job.definition.kind,
                              waitingFor: reason.description + (reason.time.map { Self.reasonTime(reason, $0.seconds, now: driver.now.seconds) } ?? ""),
                              reason: .known(reason.code), until: reason.time?.seconds)
    }

    private func submit(_ target: String, _ details: SubmitRequest, reply: @escaping (ControlResponse) -> Void) {
        guard let id = Identifier(rawValue: target) else {
            reply(.failure(.badRequest, Self.notAnIdentifier(target)))
            return
        }
        guard let job = continuedJob(for: id) else {
            if let other = catalogue.registry.job(id), case .registered = other.state {
                // The job exists: the verb is wrong, not the manifest.
                reply(.failure(.notPermitted, "\(id) is a \(other.definition.kind.rawValue) job: only continued jobs are submitted; the agent decides when \(other.definition.kind.rawValue) jobs run (agentctl request \(id) asks for its next run, with --earliest and requirements, as a \(Self.requestType(other.definition.kind)) does in BackgroundTasks; agentctl trigger \(id) asks for a run soon; agentctl simulate launch \(id) runs it now)"))
                return
            }
            // No job by that name, where a manifest permits it or it is a slip for one: an unknown
            // identifier, as in every command (with did-you-mean). Else not permitted (exit 3).
            if !isKnown(id), catalogue.registry.permitsAnywhere(id) || likelyJob(for: id) != nil {
                return reply(.failure(.notFound, noJob(id)))
            }
            reply(.failure(.notPermitted, "not-permitted: no registered continued job accepts \(id) (a job with that identifier, or one whose identifier is a prefix permitted with .* in a manifest)"))
            return
        }
        var submission = Submission(identifier: id, jobIdentifier: job.identifier, title: details.title,
                                    subtitle: details.subtitle, arguments: details.arguments,
                                    strategy: details.strategy, requestID: 0)
        submission.notify = details.notify
        scheduling.submit(submission, reply: { outcome, requestID in
            switch outcome {
            case .accepted(let position) where position > 0:
                reply(.success(.done(message: "submitted \(id) as request \(requestID): queued (position \(position))",
                                            requestID: requestID)))
            case .accepted, .requested:
                // Launched in this event: its run is the newest of the identifier's.
                let run = runs.runs(of: id).map(\.state.id).max()
                reply(.success(.done(message: "submitted \(id) as request \(requestID)" + (run.map { ": started run \($0)" } ?? ""),
                                            runID: run?.description, requestID: requestID)))
            case .refused(.notPermitted):
                reply(.failure(.notPermitted, "not-permitted: \(id)"))
            case .refused(.tooManyPending):
                reply(.failure(.tooManyPending, "\(job.identifier) already has 16 pending submissions: wait for some to finish, or withdraw the queued ones with agentctl cancel-request \(job.identifier)"))
            case .refused(.cannotStartNow(let reason)):
                reply(.failure(.unavailable, "\(id) cannot start now (\(reason)): \(Self.nextStep(for: reason, id, job.identifier))"))
            }
        }, unwritable: { reply(.failure(.unavailable, $0.description)) })
    }

    /// What to do about a refused submission: refusals that no wait cures say what would
    /// cure them; the rest came from strategy fail (agentctl's `--strategy fail`, an app's `.fail`).
    static func nextStep(for reason: WaitReason, _ id: Identifier, _ job: Identifier) -> String {
        switch reason {
        case .denied: return "it is disabled; agentctl enable \(job) first"
        case .restricted: return "Deny= in agentd.conf forbids it; only an administrator can change that"
        case .condition(let hold) where hardStopCure(hold) != nil: return (hardStopCure(hold) ?? "") + ", then submit again"
        case .condition(.resource(let name)): return "this machine has no \(name) (see agentctl resources)"
        case .agentStopping: return "agentd is stopping; submit again once it has restarted, or with strategy queue (queued work starts after the restart; \(Self.queueSpelling))"
        // It waits for whatever holds it (a slot, the network, power), not only for a slot.
        default: return "strategy fail does not wait: submit again later, or with strategy queue to wait until it can start (\(Self.queueSpelling))"
        }
    }

    /// Both askers' spelling: the refusal reaches agentctl users and apps alike.
    static let queueSpelling = "agentctl submit --strategy queue; .queue in BackgroundTasks"

    /// The continued job a submission resolves to (`ConfigRegistry.job(accepting:kind:)`).
    private func continuedJob(for id: Identifier) -> JobDefinition? {
        catalogue.registry.job(accepting: id) { $0 == .continued }
    }

    /// Resolves a request's target to a registered job, or says why not.
    func registeredJob(_ target: String) -> Result<JobDefinition, ControlError> {
        guard let id = Identifier(rawValue: target) else {
            return .failure(ControlError(code: .badRequest, message: Self.notAnIdentifier(target)))
        }
        guard let job = catalogue.registry.job(id) else {
            if let refused = catalogue.registry.jobFileWithErrors(id) {
                return .failure(ControlError(code: .notFound, message: "\(id): \(refused.explanation)"))
            }
            return .failure(ControlError(code: .notFound, message: noJob(id)))
        }
        switch job.state {
        case .registered:
            return .success(job.definition)
        case .notPermitted(let reason):
            return .failure(ControlError(code: .notPermitted, message: "\(id): \(reason)"))
        case .duplicate(let other):
            return .failure(ControlError(code: .notFound, message: "\(id) in \(job.sourcePath) is a duplicate of \(other)"))
        }
    }

    private func simulateLaunch(_ target: String) -> ControlResponse {
        switch registeredJob(target) {
        case .failure(let error):
            return .failure(error)
        case .success(let job):
            switch launchNow(job, reason: .simulated) {
            case .failure(let error): return .failure(error)
            case .success(let id):
                if let ended = endedAtOnce(id) {
                    return .success(.done(message: "run \(id) of \(job.identifier) \(ended)", runID: id.description))
                }
                return .success(.done(message: "started run \(id) of \(job.identifier)", runID: id.description))
            }
        }
    }

    /// A run now, decided by the scheduler like every other launch.
    func launchNow(_ job: JobDefinition, reason: RunReason) -> Result<RunID, ControlError> {
        switch scheduling.launchNow(job.identifier, reason: reason) {
        case .success(let run):
            return .success(run)
        case .failure(.cannotStartNow(.running)):
            let running = runs.runs(of: job.identifier).first.map { $0.state.id.description } ?? "a run"
            return .failure(ControlError(code: .unavailable, message: "\(job.identifier) is already running as \(running) (wait for it, or agentctl cancel \(running))"))
        case .failure(.cannotStartNow(.agentStopping)):
            return .failure(ControlError(code: .unavailable, message: "agentd is stopping: nothing new starts (try again once it has restarted)"))
        case .failure(.cannotStartNow(.denied)):
            return .failure(ControlError(code: .unavailable, message: "\(job.identifier) is disabled: a stale job is not run "
                + "while disabled (agentctl enable \(job.identifier) lets it run; agentctl run \(job.identifier) runs it once anyway)"))
        case .failure(.cannotStartNow(.condition(.sleep))):
            return .failure(ControlError(code: .unavailable, message: "the machine is about to sleep: nothing starts now "
                + "(run it again after the resume; agentctl request \(job.identifier) runs it once the machine is back)"))
        case .failure(.cannotStartNow(.condition(let stop))) where Self.hardStopCure(stop) != nil:
            // Every run is stopped now, so none is started, policy bypassed or not (DESIGN §6).
            return .failure(ControlError(code: .unavailable, message: "\(job.identifier) cannot start now: \(stop) "
                + "stops every run, even one started by hand; \(Self.hardStopCure(stop) ?? ""), then run it again"))
        case .failure(let why):
            return .failure(ControlError(code: .unavailable, message: "\(job.identifier) cannot start now: \(why)"))
        }
    }

    /// What ends a hard stop; nil for any other hold.
    static func hardStopCure(_ hold: ConditionHold) -> String? {
        switch hold {
        case .batteryCritical: "plug in external power"
        case .thermal(.critical): "let the machine cool down (agentctl status shows the thermal state)"
        default: nil
        }
    }

    private func simulateExpire(_ target: String) -> ControlResponse {
        let targets = liveRuns(for: target)
        guard !targets.isEmpty else {
            if let unknown = unknownJob(target) { return unknown }
            return .failure(.notFound, Self.noLiveRun(target, hint: "", latest: scheduling.scheduler.latestRunID))
        }
        let expired = targets.filter { runs.expire($0, reason: .simulated) }
        guard !expired.isEmpty else { return .failure(.unavailable, "\(target) is already stopping") }
        return .success(.done(message: "expiring " + expired.map(\.description).joined(separator: ", "),
                                      runID: expired.first?.description))
    }

    /// Live runs only (DESIGN §4): pending requests stay, `cancel-request` withdraws them.
    private func cancel(_ target: String) -> ControlResponse {
        let targets = liveRuns(for: target)
        guard !targets.isEmpty else {
            if let unknown = unknownJob(target) { return unknown }
            let pending = Identifier(rawValue: target).map { scheduling.scheduler.withdrawable($0) } ?? WithdrawnWork()
            let hint = pending.isEmpty ? "" : "; its pending request stays: agentctl cancel-request \(target) withdraws it"
            return .failure(.notFound, "nothing was running: " + Self.noLiveRun(target, hint: hint, latest: scheduling.scheduler.latestRunID))
        }
        let cancelled = targets.filter { runs.cancel($0) }
        guard !cancelled.isEmpty else { return .failure(.unavailable, "\(target) is already stopping") }
        return .success(.done(message: "cancelling " + cancelled.map(\.description).joined(separator: ", "),
                                      runID: cancelled.first?.description))
    }

    /// `r000042 is no live run (…)` or `local.backup has no live run (…)`; a run id past the
    /// `latest` run never started.
    static func noLiveRun(_ target: String, hint: String, latest: RunID?) -> String {
        if let run = RunID(parsing: target) {
            guard let latest, run.number <= latest.number else {
                return "no run \(target) has started\(latest.map { " (the latest is \($0))" } ?? "")\(hint.isEmpty ? "; agentctl history lists runs" : hint)"
            }
            return "\(target) is no live run\(hint.isEmpty ? " (agentctl history shows how it ended)" : hint)"
        }
        return "\(target) has no live run\(hint.isEmpty ? " (see agentctl status)" : hint)"
    }

    /// A run id (`r000042`) names one run; an identifier names all its live runs.
    func liveRuns(for target: String) -> [RunID] {
        if let id = RunID(parsing: target) {
            return runs.run(id) == nil ? [] : [id]
        }
        guard let identifier = Identifier(rawValue: target) else { return [] }
        return runs.runs(of: identifier).map(\.state.id)
    }

    /// One page of runs, newest first, bounded in rows and bytes (`HistoryPage`); `nextCursor`
    /// says where the next page starts.
    private func history(_ request: HistoryQuery) -> ControlResponse {
        guard state.database != nil else {
            return .failure(.unavailable, state.problem ?? "the state database is not open")
        }
        var page = HistoryPage(limit: request.limit ?? 20)
        do {
            // On the loop, holding the connection: waits only while a write job runs.
            let known = try state.reading { store -> Bool in
                var before: HistoryPosition?
                if let cursor = request.cursor {
                    guard let position = try store.position(of: cursor) else { return false }
                    before = position
                }
                // One row more than the page holds tells whether another page follows.
                let withLogTail = !request.omitLogTails
                try store.historyPage(identifier: request.target, before: before, limit: page.limit + 1,
                                      startedFrom: request.since, startedBefore: request.until,
                                      ofJob: request.target.flatMap(Identifier.init(rawValue:)).map(isJob) ?? false) { row in
                    page.add(Self.record(row, withLogTail: withLogTail))
                }
                return true
            }
            if known == false, let cursor = request.cursor {
                return .failure(.badRequest, "history: no run \(cursor) to continue after (pass the nextCursor of the previous answer, or no cursor for the newest runs)")
            }
        } catch {
            return readFailed("reading history", error)
        }
        // A typo (`history nope.nope`) is no empty history: say so, with the likely job.
        if page.records.isEmpty, request.cursor == nil, let target = request.target, let id = Identifier(rawValue: target),
           !isKnown(id) {
            return .failure(.notFound, noJob(id))
        }
        return .success(.runs(page.records, nextCursor: page.nextCursor))
    }

    /// Whether `id` is a registered job: `history`/`logs` of it show its runs, its submissions'
    /// dynamic identifiers (`….export.Holidays`) included; of anything else, that identifier's.
    func isJob(_ id: Identifier) -> Bool { catalogue.registry.job(id) != nil }

    /// Whether `id` is a job the agent has, or a dynamic identifier below one (`….export.7f3a`).
    func isKnown(_ id: Identifier) -> Bool {
        let registry = catalogue.registry
        if registry.job(id) != nil || registry.jobFileWithErrors(id) != nil { return true }
        return id.parents.contains { registry.job($0) != nil }
    }

    /// `"bad..id" is not an identifier: …`, the text quoted (at most 80 bytes, control bytes
    /// escaped) so the reader sees which one.
    static func notAnIdentifier(_ target: String) -> String {
        "\(EventFilter.shown(target)) is not an identifier" + (Identifier.problem(with: target).map { ": " + $0 } ?? "")
    }

    /// `no job local.tidy-tpm; did you mean local.tidy-tmp? (see agentctl list)`.
    func noJob(_ id: Identifier) -> String {
        let hint = likelyJob(for: id).map { "; did you mean \($0)?" } ?? ""
        return "no job \(id)\(hint) (see agentctl list)"
    }

    /// The job `id` is likely a slip for, if any.
    func likelyJob(for id: Identifier) -> String? {
        let known = catalogue.registry.allJobs.map(\.definition.identifier.rawValue)
        // A drop-in script's identifier is local.NAME: NAME alone is the likeliest slip.
        let local = DropInScript.identifierPrefix + id.rawValue
        return known.contains(local) ? local : NameSuggestion.closest(to: id.rawValue, among: known)
    }

    private static func record(_ row: StoredRun, withLogTail: Bool) -> RunRecord {
        var record = row.record
        if !withLogTail { record.logTail = [] }
        return record
    }

    func statusReport() -> StatusReport {
        let registry = catalogue.registry
        let summary = scheduling.scheduler.waitingSummary(now: scheduling.now, limit: 100)
        var report = StatusReport(
            version: AgentVersion.string, pid: getpid(), startedAt: about.startedAtWall,
            uptimeSeconds: about.startedAt.duration(to: loop.now).components.seconds,
            configDirectory: about.options.configDirectory,
            stateDirectory: about.options.stateDirectory, socketPath: about.options.socketPath,
            manifestCount: registry.manifestCount, jobCount: registry.jobCount,
            diagnostics: catalogue.directoryWarnings + registry.diagnostics + catalogue.crossJobWarnings,
            stateError: state.problem,
            running: runs.summaries(), pending: pendingSummaries(limit: 100, from: summary.work),
            pendingCount: summary.total,
            paused: scheduling.scheduler.isPaused,
            budgetLeft: scheduling.scheduler.budgetRemaining(now: scheduling.now),
            dailyBudget: registry.settings.dailyBudget, inputs: conditions.inputs,
            configWatch: catalogue.watchStatus,
            runLimits: runs.limitEnforcement,
            budgets: scheduling.scheduler.budgetStandings(now: scheduling.now).map(BudgetFigures.init))
        report.metricsFileProblem = metricsFileProblem()
        return report
    }

    /// Why `MetricsFile=` is not written, asked at each `status` (set by `Agent`).
    var metricsFileProblem: () -> String? = { nil }

    /// A read of the state database failed: reported to the state writer, and answered with
    /// what to do when the file is damaged (a bug or a disk error otherwise).
    func readFailed(_ what: String, _ error: any Error) -> ControlResponse {
        stateWriter.report(error)
        if let store = error as? StoreError, store.kind == .damaged, let problem = stateWriter.problem {
            return .failure(.unavailable, "\(what) failed: \(problem.refusal)")
        }
        return .failure(.internal, "\(what) failed: \(error)")
    }

    /// `metrics`: every figure, or a page of them: the agent's own, with a page of its jobs'
    /// (each job's figures and the run counts by stop reason of those jobs).
    private func metricsAnswer(_ page: PageRequest?, maxBytes: Int) -> ControlResponse {
        var snapshot = metrics.snapshot()
        guard let page else { return .success(.metrics(snapshot)) }
        var ended: [String: [RunsEnded]] = [:]
        for entry in snapshot.runsEnded { ended[entry.identifier, default: []].append(entry) }
        let (jobs, next) = AnswerPaging.page(snapshot.jobs, page, maxBytes: maxBytes) { job in
            AnswerPaging.estimatedBytes(of: job, ended: ended[job.identifier]?.count ?? 0)
        }
        snapshot.jobs = jobs
        snapshot.runsEnded = jobs.flatMap { ended[$0.identifier] ?? [] }
        return .success(.metrics(snapshot, nextOffset: next))
    }

    /// `list`: every job, or one page of them (only the page's jobs are summarised, unless
    /// files in error are listed among them).
    private func list(_ page: PageRequest?, maxBytes: Int) -> ControlResponse {
        guard let page else { return .success(.jobs(jobSummaries())) }
        let (jobs, next) = catalogue.registry.jobFilesWithErrors.isEmpty
            ? AnswerPaging.page(catalogue.registry.allJobs.lazy.map { self.summary(of: $0) }, page, maxBytes: maxBytes,
                                size: AnswerPaging.estimatedBytes(of:))
            : AnswerPaging.page(jobSummaries(), page, maxBytes: maxBytes, size: AnswerPaging.estimatedBytes(of:))
        return .success(.jobs(jobs, nextOffset: next))
    }

    func jobSummaries() -> [JobSummary] {
        let refused = catalogue.registry.jobFilesWithErrors.map(Self.summary(ofRefused:))
        guard !refused.isEmpty else { return loadedJobSummaries() }
        // In identifier order with the others (byte-wise; identifiers are ASCII), `-` first.
        return (loadedJobSummaries() + refused).sorted {
            $0.identifier != $1.identifier
                ? $0.identifier.utf8.lexicographicallyPrecedes($1.identifier.utf8)
                : $0.source.utf8.lexicographicallyPrecedes($1.source.utf8)
        }
    }

    /// A job file with errors, listed as `error (jobs.d/x.job:4)` rather than vanishing; `-`
    /// for what the file did not get to say.
    static func summary(ofRefused file: JobFileWithErrors) -> JobSummary {
        JobSummary(identifier: file.identifier?.rawValue ?? "-", kind: nil, source: file.sourcePath,
                   state: file.stateText, exec: file.plugin.map { [$0] } ?? [], intervalSeconds: nil)
    }

    private func loadedJobSummaries() -> [JobSummary] {
        catalogue.registry.allJobs.map(summary(of:))
    }

    private func summary(of job: RegisteredJob) -> JobSummary {
        let state: String
        var waiting: String?
        var waitingReason: WaitReason?
        var nextDue: SchedulerTime?
        switch job.state {
        case .registered:
            state = JobSummary.registered
            let driver = scheduling
            if !runs.runs(of: job.definition.identifier).isEmpty {
                // Live: that is its state now, whatever waits behind the run (a request); NEXT
                // is when the run after it is due, as explain's "next run waiting" says.
                waitingReason = .running
                waiting = WaitReason.running.description
                nextDue = driver.scheduler.waitReason(for: job.definition.identifier, now: driver.now)?.time
            } else if let reason = driver.scheduler.waitReason(for: job.definition.identifier, now: driver.now) {
                switch reason {
                case .notDue: break
                default:
                    waitingReason = reason
                    waiting = reason.description + (reason.time.map { Self.reasonTime(reason, $0.seconds, now: driver.now.seconds) } ?? "")
                }
            }
        case .notPermitted(let reason): state = reason
        case .duplicate(let other): state = "duplicate of \(other)"
        }
        return JobSummary(
            identifier: job.definition.identifier.rawValue, kind: job.definition.kind,
            source: job.sourcePath, state: state, exec: job.definition.exec,
            intervalSeconds: job.definition.interval.map { $0.components.seconds }, waiting: waiting,
            waitingReason: waitingReason.map { .known($0.code) }, waitingUntil: (nextDue ?? waitingReason?.time)?.seconds)
    }
}

extension ControlHandler {
    /// `(earliest 14:05)`, or `(12/12, refills 00:00)` for a manifest's budget, as DESIGN §6 words them; a
    /// time that is not today carries its day (`(earliest Wed 07:54)`).
    static func reasonTime(_ reason: WaitReason, _ seconds: Double, now: Double) -> String {
        let text = LocalClockText.text(seconds, now: now)
        // A refill is always the coming local midnight: its time of day says it.
        if case .budget(let budget) = reason {
            return " (\(budget.used)/\(budget.limit), refills \(LocalClockText.timeOfDay(seconds)))"
        }
        return " " + WaitTimeLabel.label(for: reason) + text + ")"
    }

}
