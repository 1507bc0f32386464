// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import Foundation

/// Apple's `BGTaskScheduler` on agentd (DESIGN §13). The job's `Exec=` is the app's executable:
/// launched by agentd (`AGENTD_IDENTIFIER` set) the handler registered for that identifier is
/// called on its queue with the task; otherwise `register` only records the handler. Every
/// call has finished its exchange with the agent when it returns.
public final class BGTaskScheduler: @unchecked Sendable {
    public static let shared = BGTaskScheduler()

    private let lock = NSLock()
    private var registered: Set<String> = []
    private var launched = false
    private var expirationSource: DispatchSourceSignal?
    private let environment: [String: String]
    private let socketPath: @Sendable () -> String

    init(environment: [String: String] = ProcessInfo.processInfo.environment,
         socketPath: @escaping @Sendable () -> String = { AgentSocket.path() }) {
        self.environment = environment
        self.socketPath = socketPath
    }

    // MARK: registering

    /// Records the launch handler of `identifier` (false when one is already registered). When
    /// agentd launched this process for it, the handler is called on `queue` (nil: a background
    /// queue) with the task, and SIGTERM calls the task's `expirationHandler` on that queue.
    /// An identifier ending in `.*` handles every dynamic identifier it prefixes.
    @discardableResult
    public func register(forTaskWithIdentifier identifier: String, using queue: DispatchQueue? = nil,
                         launchHandler: @escaping @Sendable (BGTask) -> Void) -> Bool {
        let (isNew, launch): (Bool, Bool) = lock.withLock {
            guard registered.insert(identifier).inserted else { return (false, false) }
            guard !launched, let current = environment["AGENTD_IDENTIFIER"],
                  Self.matches(identifier, current) else { return (true, false) }
            launched = true
            return (true, true)
        }
        if launch { start(launchHandler, on: queue ?? DispatchQueue.global(qos: .utility)) }
        return isNew
    }

    static func matches(_ registered: String, _ launched: String) -> Bool {
        if registered == launched { return true }
        guard registered.hasSuffix(".*") else { return false }
        return launched.hasPrefix(String(registered.dropLast()))
    }

    private func start(_ handler: @escaping @Sendable (BGTask) -> Void, on queue: DispatchQueue) {
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
        // SIGTERM is the agent expiring the run: it reaches the task's handler on its queue,
        // never the default action (which would end the process without a result).
        signal(SIGTERM, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGTERM, queue: queue)
        source.setEventHandler {
            if let expire = task.expirationHandler { expire() } else { task.setTaskCompleted(success: false) }
        }
        source.resume()
        lock.withLock { expirationSource = source }
        queue.async { handler(task) }
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
            earliestBegin: taskRequest.earliestBeginDate?.timeIntervalSince1970,
            requiresNetwork: processing?.requiresNetworkConnectivity == true ? .any : nil,
            requiresExternalPower: processing?.requiresExternalPower == true ? true : nil)
        return .request(target: taskRequest.identifier, options)
    }

    /// Withdraws the identifier's pending request (or queued submissions); a live run goes on.
    public func cancel(taskRequestWithIdentifier identifier: String) {
        _ = try? AgentSocket.exchange(ControlRequest.cancelRequest(.identifier(identifier)), path: socketPath())
    }

    /// Withdraws every pending request the caller may change.
    public func cancelAllTaskRequests() {
        _ = try? AgentSocket.exchange(ControlRequest.cancelRequest(.all), path: socketPath())
    }

    public func getPendingTaskRequests(completionHandler: @escaping @Sendable ([BGTaskRequest]) -> Void) {
        let requests = pending()
        DispatchQueue.global(qos: .utility).async { completionHandler(requests) }
    }

    public func pendingTaskRequests() async -> [BGTaskRequest] {
        pending()
    }

    private func pending() -> [BGTaskRequest] {
        let waiting = try? AgentSocket.exchange(ControlRequest.pending(target: nil), path: socketPath()).get().pending()
        return (waiting ?? []).compactMap(Self.taskRequest(from:))
    }

    static func taskRequest(from summary: PendingSummary) -> BGTaskRequest? {
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
            request = BGContinuedProcessingTaskRequest(identifier: summary.identifier, title: summary.title ?? "", subtitle: "")
        }
        if let seconds = summary.request?.earliestBegin ?? summary.earliestBegin {
            request.earliestBeginDate = Date(timeIntervalSince1970: seconds)
        }
        return request
    }

    /// `.gpu` when the machine has a GPU `Resources=gpu` can use.
    public var supportedResources: BGContinuedProcessingTaskRequest.Resources {
        let gpus = try? AgentSocket.exchange(ControlRequest.resources, path: socketPath()).get().resources().gpus
        return gpus?.isEmpty == false ? .gpu : []
    }
}
