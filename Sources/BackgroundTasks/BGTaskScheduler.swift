// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import CShim
import Foundation

/// Apple's `BGTaskScheduler` on agentd (DESIGN §13). The job's `Exec=` is the app's executable:
/// launched by agentd (`AGENTD_IDENTIFIER` set) the handler registered for that identifier is
/// called on its queue with the task; otherwise `register` only records the handler. Every
/// call has finished its exchange with the agent when it returns.
public final class BGTaskScheduler: @unchecked Sendable {
    public static let shared = BGTaskScheduler(handlerDeadline: BGTaskScheduler.launchHandlerDeadline,
                                               missingHandler: BGTaskScheduler.endWithoutHandler)

    /// How long a process agentd launched has to register the handler of the identifier it was
    /// launched for, counted from its first `register` (of any identifier: a plugin that
    /// registers none is not launched through this library). iOS ends an app that has none once
    /// it has launched; here the process ends with exit 1 and says why, instead of holding its
    /// run's slot silently until `MaxRuntime=`.
    public static let launchHandlerDeadline: Duration = .seconds(10)

    private let lock = NSLock()
    private var registered: Set<String> = []
    private var launched = false
    private var expirationSource: DispatchSourceSignal?
    /// The task this process was launched for, once its handler has been found.
    private var startedTask: BGTask?
    private let environment: [String: String]
    private let socketPath: @Sendable () -> String
    private let handlerDeadline: Duration?
    /// Told the launched identifier and what was registered, when no handler matched in time.
    private let missingHandler: @Sendable (String, [String]) -> Void
    /// The deadline was armed (by the first registration of a process agentd launched).
    private(set) var handlerDeadlineArmed = false

    init(environment: [String: String] = ProcessInfo.processInfo.environment,
         socketPath: @escaping @Sendable () -> String = { AgentSocket.path() },
         handlerDeadline: Duration? = nil, missingHandler: @escaping @Sendable (String, [String]) -> Void = { _, _ in }) {
        self.environment = environment
        self.socketPath = socketPath
        self.handlerDeadline = handlerDeadline
        self.missingHandler = missingHandler
    }

    /// From the first registration of a process agentd launched: if by the deadline no handler
    /// matched its identifier, `missingHandler` is told which.
    private func armHandlerDeadline() {
        guard let handlerDeadline, let identifier = environment["AGENTD_IDENTIFIER"], !identifier.isEmpty else { return }
        lock.withLock { handlerDeadlineArmed = true }
        let (seconds, attoseconds) = handlerDeadline.components
        let delay = DispatchTimeInterval.milliseconds(Int(seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000))
        let missing = missingHandler
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self else { return }
            let (launched, registered) = self.lock.withLock { (self.launched, self.registered.sorted()) }
            if !launched { missing(identifier, registered) }
        }
    }

    /// What a launched process that registered no handler for its identifier says, on stderr
    /// (its run's log), before it ends with exit 1.
    static func missingHandlerMessage(_ identifier: String, registered: [String] = []) -> String {
        var text = "BackgroundTasks: agentd launched this process for \(identifier), but no launch handler was registered "
            + "for it within \(launchHandlerDeadline.components.seconds) s"
        if !registered.isEmpty { text += " (registered: " + registered.joined(separator: ", ") + ")" }
        text += ": call BGTaskScheduler.shared.register(forTaskWithIdentifier: \"\(identifier)\", using: nil) "
            + "{ task in … } when the app starts, before its other work (as on iOS, before the end of launch)"
        if registered.contains(identifier + ".*") {
            // The job's own identifier is launched too (its Exec= for a submission of the bare
            // identifier), and a prefix registration never matches the prefix itself.
            text += "; \"\(identifier).*\" covers only the identifiers made under it (\(identifier).NAME), not \(identifier) itself"
        } else if let dot = identifier.lastIndex(of: ".") {
            text += "; for identifiers made per submission, register their prefix: \"\(identifier[..<dot]).*\""
        }
        return text
    }

    /// C's `stdout` is a global Swift 6 cannot prove safe: a shim sets its buffering, once,
    /// before the handler runs.
    private static func lineBufferStandardOutput() {
        cshim_line_buffer_stdout()
    }

    private static let endWithoutHandler: @Sendable (String, [String]) -> Void = { identifier, registered in
        FileHandle.standardError.write(Data((missingHandlerMessage(identifier, registered: registered) + "\n").utf8))
        exit(1)
    }

    // MARK: registering

    /// Records the launch handler of `identifier` (false when one is already registered). When
    /// agentd launched this process for it, the handler is called on `queue` (nil: a background
    /// queue) with the task once the launch is over — once `main` hands the main queue over
    /// (`dispatchMain()`, a run loop, an async `main`), as iOS calls it after
    /// `application(_:didFinishLaunchingWithOptions:)` — and SIGTERM calls the task's
    /// `expirationHandler`, once, on a queue of its own (the handler may still be working).
    /// An identifier ending in `.*` handles every dynamic identifier it prefixes.
    @discardableResult
    public func register(forTaskWithIdentifier identifier: String, using queue: DispatchQueue? = nil,
                         launchHandler: @escaping (BGTask) -> Void) -> Bool {
        // No manifest can permit what is no identifier (`""`, `a..b`): false, as iOS answers an
        // identifier its Info.plist does not list.
        guard Self.isRegistrable(identifier) else { return false }
        let (isNew, launch, first): (Bool, Bool, Bool) = lock.withLock {
            let first = registered.isEmpty
            guard registered.insert(identifier).inserted else { return (false, false, false) }
            guard !launched, let current = environment["AGENTD_IDENTIFIER"],
                  Self.matches(identifier, current) else { return (true, false, first) }
            launched = true
            return (true, true, first)
        }
        if launch { start(launchHandler, on: queue ?? DispatchQueue.global(qos: .utility)) }
        else if first { armHandlerDeadline() }
        return isNew
    }

    /// A task identifier (DESIGN §3), or the prefix of them a manifest's `PREFIX.*` permits.
    static func isRegistrable(_ identifier: String) -> Bool {
        if identifier.hasSuffix(".*") { return Identifier(rawValue: String(identifier.dropLast(2))) != nil }
        return Identifier(rawValue: identifier) != nil
    }

    static func matches(_ registered: String, _ launched: String) -> Bool {
        if registered == launched { return true }
        guard registered.hasSuffix(".*") else { return false }
        return launched.hasPrefix(String(registered.dropLast()))
    }

    private func start(_ handler: @escaping (BGTask) -> Void, on queue: DispatchQueue) {
        let identifier = environment["AGENTD_IDENTIFIER"] ?? ""
        let output = TaskOutput()
        let task: BGTask
        switch environment["AGENTD_KIND"] {
        case "refresh": task = BGAppRefreshTask(identifier: identifier, output: output)
        case "continued":
            task = BGContinuedProcessingTask(identifier: identifier, title: environment["AGENTD_TITLE"] ?? "",
                                             subtitle: environment["AGENTD_SUBTITLE"] ?? "", output: output)
        default: task = BGProcessingTask(identifier: identifier, output: output)
        }
        // stdout is the agent's pipe: print() lines go out as they are written (line-buffered,
        // as on a terminal), not when the process ends or never if it is killed.
        Self.lineBufferStandardOutput()
        // SIGTERM is the agent expiring the run: it reaches the task's handler, never the default
        // action (which would end the process without a result). On a queue of its own: a handler
        // that works on in a loop until told to stop (`while !stopped`, as Apple's examples do)
        // holds its queue. Once: the agent signals the main process, its group and its cgroup,
        // and each may arrive apart.
        signal(SIGTERM, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGTERM, queue: DispatchQueue(label: "BackgroundTasks.expiration"))
        source.setEventHandler { task.expire() }
        source.resume()
        lock.withLock {
            expirationSource = source
            startedTask = task
        }
        atexit { BGTaskScheduler.shared.exitingBeforeCompletion() }
        let launch = Launch(handler: handler, task: task)
        DispatchQueue.main.async { queue.async { launch.run() } }
        // A main that never hands the main queue over (it waits on a semaphore) would never see
        // its handler called: after a while it is called anyway, and told why it was late.
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .seconds(Self.mainQueueGrace)) {
            guard launch.claim() else { return }
            FileHandle.standardError.write(Data(Self.mainQueueHeldMessage.utf8))
            queue.async { launch.run(claimed: true) }
        }
    }

    /// How long the launch handler waits for `main` to hand the main queue over.
    static let mainQueueGrace = 2

    static let mainQueueHeldMessage = "BackgroundTasks: the launch handler waited \(mainQueueGrace) s for main to finish "
        + "launching and hand over the main queue; it starts now. End main with dispatchMain() (or run a run loop) "
        + "after registering, as the examples do: the handler then starts once main has set up the app's state\n"

    /// A launch handler and its task, run once: by the main queue's turn, or by the grace timer.
    private final class Launch: @unchecked Sendable {
        private let handler: (BGTask) -> Void
        private let task: BGTask
        private let lock = NSLock()
        private var claimed = false

        init(handler: @escaping (BGTask) -> Void, task: BGTask) {
            self.handler = handler
            self.task = task
        }

        /// True for the first caller only.
        func claim() -> Bool {
            lock.withLock {
                defer { claimed = true }
                return !claimed
            }
        }

        func run(claimed: Bool = false) {
            guard claimed || claim() else { return }
            handler(task)
        }
    }

    /// At exit (main returned, or `exit` called) before the task was completed: iOS never lets an
    /// app's main return, and an exit status 0 here would record a run that did not do its work
    /// as a success. It says so and ends as a failure.
    func exitingBeforeCompletion() {
        guard let task = lock.withLock({ startedTask }), !task.isCompleted else { return }
        FileHandle.standardError.write(Data(("BackgroundTasks: the process is exiting before its task called "
            + "setTaskCompleted(success:): keep main running after registering (end it with dispatchMain()); "
            + "the run ends as a failure\n").utf8))
        task.output.finish()
        _exit(1)
    }

    // MARK: requests

    /// Asks for a run: `BGAppRefreshTaskRequest`/`BGProcessingTaskRequest` become the agent's
    /// `request` (one pending per identifier, a new one replaces it),
    /// `BGContinuedProcessingTaskRequest` its `submit`.
    public func submit(_ taskRequest: BGTaskRequest) throws {
        let failFast = (taskRequest as? BGContinuedProcessingTaskRequest)?.strategy == .fail
        let response = try AgentSocket.exchange(Self.controlRequest(for: taskRequest), path: socketPath())
        if case .failure(let error) = response {
            throw Error(Error.code(for: error.code, failFast: failFast), error.message)
        }
    }

    static func controlRequest(for taskRequest: BGTaskRequest) -> ControlRequest {
        if let continued = taskRequest as? BGContinuedProcessingTaskRequest {
            return .submit(target: continued.identifier,
                           SubmitRequest(title: continued.title, subtitle: continued.subtitle,
                                         strategy: continued.strategy == .fail ? .fail : .queue))
        }
        let processing = taskRequest as? BGProcessingTaskRequest
        let options = RunRequestOptions(
            earliestBegin: taskRequest.earliestBeginDate.flatMap(Self.earliestBegin),
            requiresNetwork: processing?.requiresNetworkConnectivity == true ? .any : nil,
            requiresExternalPower: processing?.requiresExternalPower == true ? true : nil,
            kind: processing == nil ? .refresh : .processing)
        return .request(target: taskRequest.identifier, options)
    }

    /// Unix seconds of `date`, held within what the protocol's instants can carry; nil for no
    /// date at all (NaN).
    static func earliestBegin(_ date: Date) -> Double? {
        let seconds = date.timeIntervalSince1970
        guard !seconds.isNaN else { return nil }
        // Past the latest instant a request can name (9999-12-31T23:59:59Z), "not before then"
        // is that instant.
        return min(max(seconds, 0), RFC3339.writableSeconds.upperBound)
    }

    /// Withdraws the identifier's pending request (or queued submissions); a live run goes on.
    public func cancel(taskRequestWithIdentifier identifier: String) {
        // Exactly that identifier, as iOS: a continued job's own identifier leaves the
        // submissions of the dynamic identifiers under it queued.
        _ = try? AgentSocket.exchange(ControlRequest.cancelRequest(.identifier(identifier, exactly: true)), path: socketPath())
    }

    /// Withdraws this app's pending requests, as iOS withdraws the calling app's: those of the
    /// identifiers it registered handlers for (every identifier an iOS app may submit has one).
    /// An app that registered none withdraws every request it may change.
    public func cancelAllTaskRequests() {
        guard !lock.withLock({ registered.isEmpty }) else {
            _ = try? AgentSocket.exchange(ControlRequest.cancelRequest(.all), path: socketPath())
            return
        }
        for identifier in Set(pending().map(\.identifier)) { cancel(taskRequestWithIdentifier: identifier) }
    }

    /// Whether `identifier` is this app's: one it registered a handler for, or one under a `.*`
    /// it registered; with nothing registered, every identifier is.
    private func isOwn(_ identifier: String) -> Bool {
        let own: Set<String> = lock.withLock { registered }
        return own.isEmpty || own.contains { Self.matches($0, identifier) }
    }

    public func getPendingTaskRequests(completionHandler: @escaping ([BGTaskRequest]) -> Void) {
        let requests = pending()
        let done = Completion(completionHandler)
        DispatchQueue.global(qos: .utility).async { done.call(requests) }
    }

    /// Apple's completion handler is not `@Sendable`; it is called once, on another queue, as iOS
    /// calls it.
    private struct Completion: @unchecked Sendable {
        let call: ([BGTaskRequest]) -> Void
        init(_ call: @escaping ([BGTaskRequest]) -> Void) { self.call = call }
    }

    public func pendingTaskRequests() async -> [BGTaskRequest] {
        pending()
    }

    /// What waits, page by page (a machine with a thousand jobs has more than one page); what
    /// was read before the agent failed to answer, if it did.
    private func pending() -> [BGTaskRequest] {
        let path = socketPath()
        let waiting = PageRequest.readAll { page -> (entries: [PendingSummary], nextOffset: Int?)? in
            guard let answer = try? AgentSocket.exchange(ControlRequest.pending(target: nil, page: page), path: path).get(),
                  let entries = try? answer.pending() else { return nil }
            return (entries, answer.nextOffset)
        }
        // iOS lists the calling app's requests only: `if pending.isEmpty { schedule() }` must not
        // see another app's.
        return waiting.compactMap(Self.taskRequest(from:)).filter { isOwn($0.identifier) }
    }

    /// The request a waiting entry stands for: a pending `request` or a queued submission. A job
    /// that waits for its own `Interval=` or `Schedule=` is no request anyone made (iOS has no
    /// such thing), and `cancel` could not withdraw it: nil.
    static func taskRequest(from summary: PendingSummary) -> BGTaskRequest? {
        guard summary.kind == .continued || summary.request != nil else { return nil }
        let request: BGTaskRequest
        switch summary.kind {
        case .refresh:
            request = BGAppRefreshTaskRequest(identifier: summary.identifier)
        case .processing:
            let processing = BGProcessingTaskRequest(identifier: summary.identifier)
            processing.requiresNetworkConnectivity = summary.request?.requiresNetwork != nil
            processing.requiresExternalPower = summary.request?.requiresExternalPower == true
            request = processing
        case .continued:
            request = BGContinuedProcessingTaskRequest(identifier: summary.identifier, title: summary.title ?? "",
                                                       subtitle: summary.subtitle ?? "")
        }
        if let seconds = summary.request?.earliestBegin ?? summary.earliestBegin {
            request.earliestBeginDate = Date(timeIntervalSince1970: seconds)
        }
        return request
    }

    /// `.gpu` when the machine has a GPU `Resources=gpu` can use. A type property, as Apple
    /// declares it (`BGTaskScheduler.supportedResources`); the agent is asked at each read.
    public static var supportedResources: BGContinuedProcessingTaskRequest.Resources {
        shared.supportedResources
    }

    /// `BGTaskScheduler.supportedResources`, asked of this scheduler's agent.
    public var supportedResources: BGContinuedProcessingTaskRequest.Resources {
        let gpus = try? AgentSocket.exchange(ControlRequest.resources, path: socketPath()).get().resources().gpus
        return gpus?.isEmpty == false ? .gpu : []
    }
}
