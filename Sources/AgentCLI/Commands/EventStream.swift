// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import AgentPOSIX
import CShim
import Glibc

/// agentctl's end of a `subscribe`d connection: event lines and, between them, the answers to
/// requests sent on the same connection (`submit --wait` submits on its subscription, so no
/// event of its run can be missed).
final class EventStream {
    /// One line from the agent.
    enum Line {
        case event(AgentEvent, raw: [UInt8])
        case response(ControlResponse)
    }

    let client: ControlClient
    private let context: CommandContext
    /// The verbs sent and not answered yet, oldest first: the agent answers a connection's
    /// requests in order, so each answer is typed for the verb it answers.
    private var unanswered: [ControlCommand] = []

    private init(client: ControlClient, context: CommandContext) {
        self.client = client
        self.context = context
    }

    /// Connects and subscribes; the subscription's answer has been read when it returns.
    /// `then` goes out in the same write as the subscription (the agent takes a connection's
    /// requests in order, so it still sees every event of what `then` starts): agentctl reads
    /// the subscription's answer while the agent works on `then`, instead of before it.
    static func open(_ filter: EventFilter, then: ControlRequest? = nil,
                     context: CommandContext) throws(CommandFailure) -> EventStream {
        let client: ControlClient
        do {
            client = try ControlClient.connect(path: context.socketPath)
        } catch {
            throw context.connectFailure(error)
        }
        let stream = EventStream(client: client, context: context)
        try stream.send([ControlRequest.subscribe(filter)] + (then.map { [$0] } ?? []))
        switch try stream.next(timeout: .seconds(10)) {
        case .response(let response)?:
            if case .failure(let error) = response {
                var failure = error.code == .badRequest && error.message.hasPrefix("malformed request: expected one JSON object")
                    ? CommandFailure(exitStatus: 5, message: "agentd at \(context.socketPath) has no event stream (it is older than agentctl \(AgentVersion.string); restart agentd after an upgrade)")
                    : CommandFailure(error, command: .subscribe)
                if then != nil { failure.message += stream.fateOfSentRequest() }
                throw failure
            }
            return stream
        case .event?, nil:
            throw CommandFailure(exitStatus: 5, message: "agentd at \(context.socketPath) did not accept the subscription (see \(context.journalAdvice))",
                                 agentUnreachable: true)
        }
    }

    /// The subscription was refused but the request sent with it was still taken: what became
    /// of it, for the failure's message.
    private func fateOfSentRequest() -> String {
        switch try? next(timeout: .seconds(10)) {
        case .response(.success(let answer))?:
            guard let done = try? answer.done() else { return "" }
            return "; the request sent with the subscription was taken all the same (\(done.message)) and is not followed"
        case .response(.failure(let error))?:
            return "; the request sent with it was refused too: \(error.message)"
        default:
            return "; whether the request sent with it was taken is unknown: look with agentctl pending"
        }
    }

    /// Sends `requests` in one write.
    func send(_ requests: [ControlRequest]) throws(CommandFailure) {
        do {
            try client.send(lines: requests.map { request in try MessageCoding.encodeLine(request) })
        } catch {
            throw lost(error)
        }
        unanswered += requests.map(\.command)
    }

    func send(_ request: ControlRequest) throws(CommandFailure) {
        try send([request])
    }

    /// The next line, nil once agentd closed the connection. Throws `.timedOut`-based failure
    /// only when `timeout` passes; callers that poll several descriptors use `nextReady`.
    func next(timeout: Duration) throws(CommandFailure) -> Line? {
        let raw: [UInt8]?
        do {
            raw = try client.readLine(timeout: timeout)
        } catch SocketError.timedOut {
            throw CommandFailure(exitStatus: 5, message: "agentd at \(context.socketPath) sent nothing within \(timeout.components.seconds) s (see \(context.journalAdvice))",
                                 agentUnreachable: true)
        } catch {
            throw lost(error)
        }
        guard let raw else { return nil }
        return try decode(raw)
    }

    /// A line already read or arriving within a millisecond, else nil (`.closed` at the end).
    func nextReady() throws(CommandFailure) -> Line?? {
        do {
            guard let raw = try client.readLine(timeout: .milliseconds(1)) else { return .some(nil) }
            return .some(try decode(raw))
        } catch SocketError.timedOut {
            return nil
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw lost(error)
        }
    }

    private func decode(_ raw: [UInt8]) throws(CommandFailure) -> Line {
        if let event = try? MessageCoding.decode(AgentEvent.self, from: raw) {
            return .event(event, raw: raw)
        }
        guard let fields = try? MessageCoding.decode(ControlResponseFields.self, from: raw), !unanswered.isEmpty else {
            throw CommandFailure(exitStatus: 1, message: "agentd sent a line agentctl cannot read (agentctl \(AgentVersion.string) and this agentd may be different versions; restart agentd after an upgrade)")
        }
        let command = unanswered.removeFirst()
        do {
            return .response(try fields.response(to: command))
        } catch {
            throw CommandFailure(error)
        }
    }

    private func lost(_ error: any Error) -> CommandFailure {
        CommandFailure(exitStatus: 5, message: "the event stream from agentd at \(context.socketPath) broke: \(error) (see \(context.journalAdvice))",
                       agentUnreachable: true)
    }
}

/// Waits for a readable descriptor or one of `SignalWait`'s signals (through a signalfd), so a
/// follower sleeps until the agent or the user says something.
final class StreamWait {
    enum Outcome: Equatable {
        case readable
        case timedOut
        case signal(SignalWait.Outcome)
    }

    private let signalFD: Int32

    /// Call after `SignalWait` blocked the signals.
    init(catchSuspend: Bool) {
        let signals = [SIGINT, SIGTERM, SIGHUP, SIGWINCH] + (catchSuspend ? [SIGTSTP] : [])
        signalFD = signals.withUnsafeBufferPointer { cshim_signalfd_for($0.baseAddress, Int32($0.count)) }
    }

    deinit {
        if signalFD >= 0 { Glibc.close(signalFD) }
    }

    /// Waits up to `milliseconds` (-1: no limit) for `descriptor` (-1: none) or a signal.
    func wait(_ descriptor: Int32, milliseconds: Int) -> Outcome {
        var fds = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&fds, 2, Int32(clamping: milliseconds))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { return .timedOut }
            if fds[1].revents != 0 {
                let signal = cshim_signalfd_read(signalFD)
                switch signal {
                case SIGWINCH: return .signal(.resized)
                case SIGTSTP: return .signal(.suspend)
                case let number where number > 0: return .signal(.stop(signal: number))
                default: break
                }
            }
            if fds[0].revents != 0 { return .readable }
            if fds[1].revents != 0 { continue }
        }
    }
}
