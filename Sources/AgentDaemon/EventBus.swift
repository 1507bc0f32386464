// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentJSON
import AgentProtocol
import AgentSystem

/// The agent's event stream (DESIGN §9): the daemon's components publish what happened, and
/// every subscribed connection whose filter matches gets it as one JSON line.
///
/// Publishing never waits: a line goes to the socket at once or into the connection's bounded
/// backlog, and a subscriber too far behind gets one `overflow` event and is dropped
/// (`ClientConnection.stream`). With nobody subscribed an event costs a counter increment.
/// Use it on the loop thread only.
final class EventBus {
    private struct Subscriber {
        let connection: any EventStreamClient
        let filter: EventFilter.Matcher
        /// Whether this subscriber sees the details of an identifier's job (DESIGN §9); nil
        /// for one who sees everything.
        let seesDetails: ((String) -> Bool)?
    }

    /// What run events need to say about a live run that the supervisor's callbacks do not.
    private struct RunLabel {
        var identifier: String
        /// The job the run is of (its identifier, or the job of a submission's dynamic one).
        var job: String
        var kind: JobKind?
        var requestID: Int64?
        /// Progress read this loop iteration and not yet published, and the last published.
        var pendingProgress: Progress?
        var publishedProgress: Progress?
        /// Title, subtitle and status read this loop iteration and not yet published: like
        /// progress, merged per read, so that a plugin printing one on every line costs a
        /// follower at most one event of each per read, never its stream.
        var pendingTitle: String?
        var pendingSubtitle: String?
        var pendingStatus: String?
        /// Output lines read this loop iteration, the newest at most `OutputBound` of them, and
        /// how many older ones were left out (DESIGN §5: merged per read, bounded).
        var pendingLines: [String] = []
        var pendingLineBytes = 0
        var droppedLines = 0
        /// The pending kinds in the order of their first line in this read: the events keep the
        /// order the plugin wrote them in.
        var pendingOrder: [EventKind] = []

        var hasPending: Bool { !pendingOrder.isEmpty }

        mutating func note(_ kind: EventKind) {
            if !pendingOrder.contains(kind) { pendingOrder.append(kind) }
        }

        /// Keeps the newest lines: drops the oldest until both bounds hold (one line alone may
        /// exceed the bytes bound: LogTail already cut it to 64 KiB, and it is sent alone).
        mutating func noteOutput(_ line: String) {
            pendingLines.append(line)
            pendingLineBytes += line.utf8.count
            while pendingLines.count > OutputBound.lines
                    || (pendingLineBytes > OutputBound.bytes && pendingLines.count > 1) {
                pendingLineBytes -= pendingLines.removeFirst().utf8.count
                droppedLines += 1
            }
            note(.runOutput)
        }

        mutating func noteProgress(_ value: Progress) {
            pendingProgress = value
            note(.runProgress)
        }

        mutating func noteText(_ text: String, as kind: EventKind) {
            switch kind {
            case .runTitle: pendingTitle = text
            case .runSubtitle: pendingSubtitle = text
            default: pendingStatus = text
            }
            note(kind)
        }
    }

    /// The sequence number of the last event published (0 before the first).
    private(set) var lastSequence: UInt64 = 0
    private var subscribers: [UInt64: Subscriber] = [:]
    /// Subscribers that named `run-output`: output lines are collected only while there is one.
    private var outputFollowers: Set<UInt64> = []
    private var runs: [RunID: RunLabel] = [:]
    /// The launch being carried out, read by `runStarted` (the supervisor's callback knows the
    /// job, not the submission's dynamic identifier or request).
    private var launching: LaunchOrder?
    /// Runs with progress to publish at the end of this loop iteration.
    private var progressed: [RunID] = []
    private var progressFlushScheduled = false
    /// Queued submissions announced to subscribers, by request number: their drop (cancelled,
    /// job removed or forbidden before they started) is announced too.
    private var queued: [Int64: String] = [:]
    private let loop: any EventLooping
    /// The wall clock in milliseconds, read fresh: event latency is measured on it.
    private let wallClock: () -> Int64
    /// The socket's form: one line, keys sorted, `/` unescaped (docs/json.md).
    private let encoder = JSONLineEncoder()

    var subscriberCount: Int { subscribers.count }

    /// In-process followers (the desktop notifier): every event, and for `run-started` the
    /// launch it came from. Called synchronously from `publish`; they must not publish.
    private var observers: [(AgentEvent, LaunchOrder?) -> Void] = []
    /// The launch whose `run-started` is being published, for the observers.
    private var publishingOrder: LaunchOrder?

    /// Whether anyone, on a socket or in-process, follows the events.
    var isFollowed: Bool { !subscribers.isEmpty || !observers.isEmpty }

    /// Adds an in-process follower for the agent's lifetime.
    func observe(_ observer: @escaping (AgentEvent, LaunchOrder?) -> Void) {
        observers.append(observer)
    }

    init(loop: any EventLooping, wallClock: @escaping () -> Int64) {
        self.loop = loop
        self.wallClock = wallClock
    }

    // MARK: subscribing

    /// Adds `connection` as a subscriber until it closes; returns the sequence number the
    /// stream starts after. Streaming connections are exempt from the idle timeout (they wait
    /// for events, they are not idle) but still count against the per-uid connection limits.
    /// `seesDetails`: the subscriber's read rule; its events of other jobs come without titles
    /// and status text (`ReadRedaction`).
    func subscribe(_ connection: any EventStreamClient, filter: EventFilter,
                   seesDetails: ((String) -> Bool)? = nil) -> UInt64 {
        let id = connection.id
        let matcher = filter.matcher()
        subscribers[id] = Subscriber(connection: connection, filter: matcher, seesDetails: seesDetails)
        if matcher.wantsOutput { outputFollowers.insert(id) }
        connection.isStreaming = true
        let previous = connection.onClose
        connection.onClose = { [weak self] reason in
            self?.drop(id)
            previous?(reason)
        }
        return lastSequence
    }

    private func drop(_ id: UInt64) {
        subscribers[id] = nil
        outputFollowers.remove(id)
    }

    // MARK: publishing

    /// Publishes one event; `fill` sets its fields and runs only when someone may want it.
    /// `job`: a run event's job, for subscribers that follow jobs (nil: `identifier` is it).
    func publish(_ kind: EventKind, identifier: String? = nil, job: String? = nil, runID: RunID? = nil,
                 _ fill: (inout AgentEvent) -> Void = { _ in }) {
        lastSequence += 1
        guard isFollowed else { return }
        let interested = subscribers.filter { $0.value.filter.matches(kind: kind, identifier: identifier, job: job) }
        guard !interested.isEmpty || !observers.isEmpty else { return }
        var event = AgentEvent(sequence: lastSequence, time: wallClock(), type: kind,
                               identifier: identifier, runID: runID?.description)
        fill(&event)
        // In-process followers never asked for output lines.
        if !kind.isOptIn { for observer in observers { observer(event, publishingOrder) } }
        guard !interested.isEmpty, let bytes = try? encoder.encode(event) else { return }
        let sequence = lastSequence
        // Encoded once for all who see everything, once for all who may not see this job's details.
        var redacted: [UInt8]??
        for (id, subscriber) in interested.sorted(by: { $0.key < $1.key }) {
            var line = bytes
            if let identifier, let sees = subscriber.seesDetails, !sees(identifier) {
                if redacted == nil {
                    redacted = .some(ReadRedaction(seesDetails: { _ in false }).apply(event).flatMap { try? encoder.encode($0) })
                }
                guard let hidden = redacted ?? nil else { continue }  // nothing left to say to it
                line = hidden
            }
            if !subscriber.connection.stream(line, lastLine: { overflowLine(missed: sequence) }) {
                drop(id)
            }
        }
    }

    /// The last line of a subscriber that fell behind; its sequence is the first one it missed.
    private func overflowLine(missed sequence: UInt64) -> [UInt8] {
        var event = AgentEvent(sequence: sequence, time: wallClock(), type: .overflow)
        event.message = "this subscriber fell too far behind (more than 128 KiB of events unread) and is disconnected; subscribe again, and read faster or filter (agentctl events ID)"
        return (try? encoder.encode(event)) ?? Array(#"{"type":"overflow"}"#.utf8)
    }

    // MARK: runs

    /// Called just before the supervisor carries out `order`.
    func willLaunch(_ order: LaunchOrder) {
        launching = order
    }

    func runStarted(job: Identifier, run: RunID, reason: RunReason) {
        let order = launching?.job.identifier == job ? launching : nil
        launching = nil
        let label = RunLabel(identifier: order?.runIdentifier.rawValue ?? job.rawValue, job: job.rawValue,
                             kind: order?.job.kind, requestID: order?.submission?.requestID)
        if let request = label.requestID { queued[request] = nil }
        runs[run] = label
        publishingOrder = order
        defer { publishingOrder = nil }
        publish(.runStarted, identifier: label.identifier, job: label.job, runID: run) { event in
            event.job = label.identifier == job.rawValue ? nil : job.rawValue
            event.kind = label.kind
            event.reason = .known(reason)
            event.requestID = label.requestID
            event.title = order?.submission?.title
            event.subtitle = order?.submission?.subtitle
        }
    }

    /// `status` and `result`: the run's last `STATUS=` and `RESULT=` (what `history -v` shows).
    func runEnded(job: Identifier, run: RunID, stop: StopReason, status: String? = nil, result: String? = nil) {
        publishProgress(of: run)  // its last progress comes before its end
        let label = runs.removeValue(forKey: run)
        publish(.runEnded, identifier: label?.identifier ?? job.rawValue, job: job.rawValue, runID: run) { event in
            event.kind = label?.kind
            event.requestID = label?.requestID
            event.stopReason = .known(stop)
            event.status = status
            event.result = result
        }
    }

    /// A `PROGRESS=`, `TITLE=`, `SUBTITLE=` or `STATUS=` line. Progress is published once per
    /// loop iteration and run, with the last value read (a plugin writing a million lines a second
    /// makes one event per read, not a million), and only when it changed.
    func runDirective(_ run: RunID, _ directive: PluginDirective) {
        // A plugin may print thousands of these a second: one lookup, the label changed in place
        // (a copy of it held across the change would copy its arrays at every line).
        guard isFollowed, let index = runs.index(forKey: run) else { return }
        let hadPending = runs.values[index].hasPending
        switch directive {
        case .progress(let value): runs.values[index].noteProgress(value)
        case .title(let text): runs.values[index].noteText(text, as: .runTitle)
        case .subtitle(let text): runs.values[index].noteText(text, as: .runSubtitle)
        case .status(let text): runs.values[index].noteText(text, as: .runStatus)
        default: return
        }
        scheduleFlush(run, hadPending: hadPending)
    }

    /// The most one `run-output` event carries: a plugin flooding its output costs a follower
    /// one event of at most this size per read, never its stream.
    enum OutputBound {
        static let lines = 64
        static let bytes = 16 * 1024
    }

    /// An output line of a live run (stderr, or a stdout line that is no directive): published
    /// with the others of the same read as one `run-output` event, to subscribers that asked.
    func runOutput(_ run: RunID, _ line: String) {
        guard !outputFollowers.isEmpty, let index = runs.index(forKey: run) else { return }
        let hadPending = runs.values[index].hasPending
        runs.values[index].noteOutput(line)
        scheduleFlush(run, hadPending: hadPending)
    }

    private func scheduleFlush(_ run: RunID, hadPending: Bool) {
        if !hadPending { progressed.append(run) }
        if !progressFlushScheduled {
            progressFlushScheduled = true
            loop.execute { [weak self] in self?.publishProgress() }
        }
    }

    /// Publishes what was read and not yet published now (before an answer that must come after
    /// those events on the stream: `logs` answers with the lines read so far).
    func flushPending() {
        let runs = progressed
        progressed = []
        for run in runs { publishProgress(of: run) }
    }

    private func publishProgress() {
        progressFlushScheduled = false
        let runs = progressed
        progressed = []
        for run in runs { publishProgress(of: run) }
    }

    /// What the run changed since the last flush, the last value of each, in the order of their
    /// first lines.
    private func publishProgress(of run: RunID) {
        guard let label = runs[run], label.hasPending else { return }
        runs[run]?.pendingProgress = nil
        runs[run]?.pendingTitle = nil
        runs[run]?.pendingSubtitle = nil
        runs[run]?.pendingStatus = nil
        runs[run]?.pendingLines = []
        runs[run]?.pendingLineBytes = 0
        runs[run]?.droppedLines = 0
        runs[run]?.pendingOrder = []
        for kind in label.pendingOrder {
            switch kind {
            case .runProgress:
                guard let progress = label.pendingProgress, progress != label.publishedProgress else { continue }
                runs[run]?.publishedProgress = progress
                publish(.runProgress, identifier: label.identifier, job: label.job, runID: run) { event in
                    event.progress = progress.fraction
                    event.completedUnitCount = progress.completedUnitCount
                    event.totalUnitCount = progress.totalUnitCount
                }
            case .runTitle:
                publish(.runTitle, identifier: label.identifier, job: label.job, runID: run) { $0.title = label.pendingTitle }
            case .runSubtitle:
                publish(.runSubtitle, identifier: label.identifier, job: label.job, runID: run) { $0.subtitle = label.pendingSubtitle }
            case .runOutput:
                publish(.runOutput, identifier: label.identifier, job: label.job, runID: run) { event in
                    event.lines = label.pendingLines
                    event.droppedLineCount = label.droppedLines > 0 ? label.droppedLines : nil
                }
            default:
                publish(.runStatus, identifier: label.identifier, job: label.job, runID: run) { $0.status = label.pendingStatus }
            }
        }
    }

    // MARK: requests, config, conditions

    /// A submission's answer: queued (accepted with a position) or refused. One that started at
    /// once says so with its `run-started` event.
    func submissionDecided(_ identifier: Identifier, requestID: Int64, _ outcome: SubmitOutcome) {
        switch outcome {
        case .accepted(let position) where position > 0:
            if !subscribers.isEmpty { queued[requestID] = identifier.rawValue }
            publish(.requestQueued, identifier: identifier.rawValue) { event in
                event.requestID = requestID
                event.position = position
            }
        case .accepted, .requested:
            break
        case .refused(let why):
            publish(.requestRefused, identifier: identifier.rawValue) { event in
                event.requestID = requestID
                event.message = why.description
            }
        }
    }

    /// Whether a queued submission is followed (`queuedSubmissionsChecked` is then due after
    /// each scheduler event).
    var followsQueuedSubmissions: Bool { !queued.isEmpty }

    /// Announces the followed queued submissions that no longer wait (`isQueued` false) and did
    /// not start: cancelled, or their job was removed or became forbidden.
    func queuedSubmissionsChecked(_ isQueued: (Int64) -> Bool) {
        for (request, identifier) in queued.sorted(by: { $0.key < $1.key }) where !isQueued(request) {
            queued[request] = nil
            publish(.requestRefused, identifier: identifier) { event in
                event.requestID = request
                event.message = "dropped from the queue before it started (cancelled, or its job was removed or is no longer permitted)"
            }
        }
    }

    /// A submission that could not be recorded (the state directory is unusable).
    func submissionUnwritable(_ identifier: Identifier, requestID: Int64, _ why: StateRefusal) {
        publish(.requestRefused, identifier: identifier.rawValue) { event in
            event.requestID = requestID
            event.message = why.description
        }
    }

    func configChanged(_ changes: [RegistryChange]) {
        for change in changes {
            for id in change.added { publish(.jobRegistered, identifier: id.rawValue) }
            for id in change.updated { publish(.jobUpdated, identifier: id.rawValue) }
            for id in change.removed { publish(.jobUnregistered, identifier: id.rawValue) }
            for diagnostic in change.diagnostics where diagnostic.severity == .error {
                publish(.jobError) { $0.message = diagnostic.description }
            }
        }
    }

    func conditionsChanged(_ inputs: @autoclosure () -> MachineInputs) {
        publish(.conditionsChanged) { $0.inputs = inputs() }
    }

    /// logind's PrepareForSleep: `going` true before the suspend, false after the resume.
    func sleepChanged(_ going: Bool) {
        publish(going ? .sleep : .resume) {
            $0.message = going ? "runs are frozen or expired before the suspend, then the sleep lock is released"
                               : "frozen runs are thawed and overdue work catches up"
        }
    }

    func agentStopping() {
        publish(.agentStopping) { $0.message = "agentd is stopping: live runs get SIGTERM and their grace period" }
    }
}
