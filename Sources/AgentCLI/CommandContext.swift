// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import AgentPOSIX
import Glibc

/// What a command needs from the outside world: where the agent is, how to print, whether people
/// or programs read the output, and the clock times are shown against.
public struct CommandContext: Sendable {
    public var socketPath: String
    /// Whether `socketPath` is the per-user agent's (`agentd --user`): advice then says
    /// `systemctl --user` and `journalctl --user`.
    public var isUserAgent = false
    /// Where the agent's log is: its unit's journal, the user unit's for `agentd --user`.
    public var journalAdvice: String { isUserAgent ? "journalctl --user -u agentd" : "journalctl -u agentd" }
    /// `$XDG_RUNTIME_DIR/agentd.sock`, for `--user`; nil without XDG_RUNTIME_DIR.
    public var userSocketPath: String?
    /// Whether standard output is a terminal.
    public var isTerminal: Bool
    /// Columns tables are cut to; nil for no limit (output to a pipe or file without `COLUMNS`).
    public var terminalWidth: Int?
    /// Colour for standard output.
    public var style: Style
    /// Colour for standard error (which may be a terminal when standard output is not).
    public var errorStyle: Style
    /// Now and the local time zone.
    public var clock: DisplayClock
    /// Where output goes (standard output; a pipe in tests).
    public var outputDescriptor: Int32 = STDOUT_FILENO
    public var errorDescriptor: Int32 = STDERR_FILENO

    /// The context of a real agentctl process.
    public init(environment: [String: String]) {
        let choice = SocketChoice.implicit(environment: environment, isRoot: geteuid() == 0) { path in
            var info = stat()
            return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK
        }
        socketPath = choice.path
        isUserAgent = choice.isUserAgent
        userSocketPath = SocketChoice.userSocket(environment: environment)
        isTerminal = Terminal.isTerminal(STDOUT_FILENO)
        terminalWidth = Terminal.width(fd: STDOUT_FILENO, environment: environment)
        style = Style.decide(isTerminal: isTerminal, environment: environment)
        errorStyle = Style.decide(isTerminal: Terminal.isTerminal(STDERR_FILENO), environment: environment)
        clock = .system
    }

    /// A context with everything given: for tests and for rendering at a fixed width.
    public init(socketPath: String = "/run/agentd/agentd.sock", isTerminal: Bool = false,
                terminalWidth: Int?, style: Style = .plain, clock: DisplayClock) {
        self.socketPath = socketPath
        self.isTerminal = isTerminal
        self.terminalWidth = terminalWidth
        self.style = style
        self.errorStyle = style
        self.clock = clock
    }

    /// Seconds since the epoch, now.
    public var now: Int64 { clock.nowSeconds }

    /// Prints `text` and a newline (unless it ends in one) on standard output.
    public func out(_ text: String) {
        Terminal.write(text.hasSuffix("\n") ? text : text + "\n", to: outputDescriptor)
    }

    /// Writes without adding a newline (progress lines redrawn in place).
    public func outRaw(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    }

    /// Prints `text` and a newline on standard error.
    public func err(_ text: String) {
        Terminal.write(text.hasSuffix("\n") ? text : text + "\n", to: errorDescriptor)
    }

    /// Sends one request and waits for its answer, typed for the verb sent; an error answer
    /// becomes a `CommandFailure` with a next step.
    public func request(_ request: ControlRequest, timeout: Duration = .seconds(10)) throws(CommandFailure) -> ControlAnswer {
        try exchange(request, timeout: timeout).answer
    }

    /// Sends one request; returns the typed answer and its raw JSON line (for fields this
    /// agentctl does not know yet).
    public func exchange(_ request: ControlRequest, timeout: Duration = .seconds(10))
        throws(CommandFailure) -> (answer: ControlAnswer, line: [UInt8]) {
        let client: ControlClient
        do {
            client = try ControlClient.connect(path: socketPath, timeout: min(timeout, .seconds(5)))
        } catch {
            throw connectFailure(error)
        }
        let line: [UInt8]
        do {
            try client.send(line: try MessageCoding.encodeLine(request))
            guard let answer = try client.readLine(timeout: timeout) else {
                throw CommandFailure(exitStatus: 5, message: "agentd at \(socketPath) closed the connection without answering (see \(journalAdvice))",
                                     agentUnreachable: true)
            }
            line = answer
        } catch let failure as CommandFailure {
            throw failure
        } catch SocketError.timedOut {
            throw CommandFailure(exitStatus: 5, message: "agentd at \(socketPath) did not answer within \(timeout.components.seconds) s (it may be overloaded or stuck; see \(journalAdvice))"
                                    + unansweredNote(request.command), agentUnreachable: true)
        } catch {
            throw CommandFailure(exitStatus: 5, message: "talking to agentd at \(socketPath) failed: \(error) (see \(journalAdvice))",
                                 agentUnreachable: true)
        }
        return (try Self.answer(to: request.command, line: line), line)
    }

    /// What a change that went unanswered may still do: the agent reads it when it runs again.
    func unansweredNote(_ command: ControlCommand) -> String {
        guard command.changesState else { return "" }
        let ctl = isUserAgent ? "agentctl --user" : "agentctl"
        return "; the request was sent and may still take effect when agentd gets to it: once \(ctl) status answers, "
            + "look before repeating it (\(ctl) pending shows what waits, \(ctl) history what ran)"
    }

    /// The answer a response line holds for the verb sent; the agent's refusal, and a line
    /// without what the verb asks for (another version of agentd), become failures that say
    /// what to do.
    static func answer(to command: ControlCommand, line: [UInt8]) throws(CommandFailure) -> ControlAnswer {
        let response: ControlResponse
        do {
            response = try MessageCoding.decode(ControlResponseFields.self, from: line).response(to: command)
        } catch let mismatch as ControlAnswerMismatch {
            throw CommandFailure(mismatch)
        } catch {
            throw CommandFailure(ControlAnswerMismatch("agentd's answer could not be read"))
        }
        switch response {
        case .success(let answer): return answer
        case .failure(let error): throw CommandFailure(error, command: command)
        }
    }

    /// Why connecting failed, in words that say what to do.
    func connectFailure(_ error: any Error) -> CommandFailure {
        switch error as? SocketError {
        case .permissionDenied?:
            return CommandFailure(exitStatus: 5, message: "not allowed to connect to agentd at \(socketPath): \(SocketAccessAdvice.text(for: socketPath))")
        case .pathTooLong?:
            return CommandFailure(exitStatus: 5, message: "socket path too long (at most 107 bytes): \(socketPath) (give a shorter --socket PATH)")
        case .timedOut?:
            return CommandFailure(exitStatus: 5, message: "agentd at \(socketPath) is not accepting connections (it may be overloaded or stuck; see \(journalAdvice))",
                                  agentUnreachable: true)
        default:
            if isUserAgent {
                return CommandFailure(exitStatus: 5, message: "cannot reach your agentd --user at \(socketPath) (is it running? try systemctl --user status agentd, or start it: systemctl --user start agentd)",
                                      agentUnreachable: true)
            }
            return CommandFailure(exitStatus: 5, message: "cannot reach agentd at \(socketPath) (is it running? try systemctl status agentd; another agent: --socket PATH or AGENTD_SOCKET, and with sudo pass --socket, since sudo drops AGENTD_SOCKET)",
                                  agentUnreachable: true)
        }
    }
}
