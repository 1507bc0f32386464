import AgentProtocol
import AgentSystem
import Glibc

/// What a command needs from the outside world: where the agent is, how to print, and whether
/// people or programs read the output.
public struct CommandContext: Sendable {
    public var socketPath: String
    public var isTerminal: Bool
    public var useColor: Bool
    public var terminalWidth: Int
    /// Seconds since the epoch, read once so one output is consistent.
    public var now: Int64

    public init(environment: [String: String]) {
        socketPath = environment["AGENTD_SOCKET"] ?? "/run/agentd/agentd.sock"
        isTerminal = isatty(STDOUT_FILENO) == 1
        useColor = isTerminal && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
        terminalWidth = Self.width(environment: environment)
        now = WallClock.now() / 1_000_000_000
    }

    private static func width(environment: [String: String]) -> Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return environment["COLUMNS"].flatMap(Int.init) ?? 100
    }

    public func out(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

    /// Writes without adding a newline (progress lines redrawn in place).
    public func outRaw(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    }

    public func err(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    private func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)
        if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written <= 0 { if errno == EINTR { continue } else { return } }
            offset += written
        }
    }

    /// Sends one request and waits for its answer.
    public func request(_ request: ControlRequest) throws(CommandFailure) -> ControlResponse {
        let unreachable = CommandFailure(
            exitStatus: 5,
            message: "cannot reach agentd at \(socketPath) (is it running? try systemctl status agentd)")
        let client: ControlClient
        do {
            client = try ControlClient.connect(path: socketPath)
        } catch {
            throw unreachable
        }
        do {
            try client.send(line: try MessageCoding.encodeLine(request))
            guard let line = try client.readLine(timeout: .seconds(10)) else {
                throw CommandFailure(exitStatus: 5, message: "agentd at \(socketPath) closed the connection without answering (see journalctl -u agentd)")
            }
            let response = try MessageCoding.decode(ControlResponse.self, from: line)
            if let error = response.error {
                throw CommandFailure(exitStatus: error.code.exitStatus, message: error.message)
            }
            return response
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(exitStatus: 5, message: "talking to agentd at \(socketPath) failed: \(error)")
        }
    }
}

/// A command that could not do its work: the message says what to do next; the status follows
/// DESIGN §8 (1 error, 2 usage, 3 not-permitted, 4 too-many-pending, 5 unavailable).
public struct CommandFailure: Error, Sendable {
    public var exitStatus: Int32
    public var message: String

    public init(exitStatus: Int32, message: String) {
        self.exitStatus = exitStatus
        self.message = message
    }
}
