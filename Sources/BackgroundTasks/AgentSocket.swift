// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One exchange with the agent on its control socket: a request line out, its answer line back,
/// the connection closed — so a call has finished with the agent when it returns.
enum AgentSocket {
    /// `AGENTD_SOCKET` (a run's own agent), else the user's agent when its socket exists, else
    /// the system's.
    static func path(environment: [String: String] = ProcessInfo.processInfo.environment,
                     exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) -> String {
        if let path = environment["AGENTD_SOCKET"], !path.isEmpty { return path }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            let user = (runtime.hasSuffix("/") ? runtime : runtime + "/") + "agentd.sock"
            if exists(user) { return user }
        }
        return "/run/agentd/agentd.sock"
    }

    /// Calls `body` with the `sockaddr_un` of `path` (for connect or bind); nil when the path
    /// does not fit one.
    static func withAddress<T>(of path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// How long a call waits for the agent to take its request and answer, as agentctl does:
    /// an agent that accepts but never answers (stopped, stuck) fails the call with
    /// `.unavailable` instead of holding the caller's thread.
    static let answerTimeout: Duration = .seconds(10)

    /// Exchanges in flight from this process at most: agentd takes 16 connections per user, and
    /// an app's many threads calling at once must not take them all (and be refused by itself).
    static let mostInFlight = 4
    static let inFlight = DispatchSemaphore(value: mostInFlight)

    static func exchange(_ request: ControlRequest, path: String = AgentSocket.path(),
                         timeout: Duration = AgentSocket.answerTimeout) throws -> ControlResponse {
        // Waiting for a slot counts against the same timeout the agent's answer has.
        let (seconds, attoseconds) = timeout.components
        let slot = DispatchTime.now() + .milliseconds(Int(seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000))
        guard inFlight.wait(timeout: slot) == .success else {
            throw BGTaskScheduler.Error(.unavailable, "this process had \(mostInFlight) calls to agentd at \(path) in flight for "
                + "\(timeout) and none ended (agentd may be stuck: agentctl status says whether it answers)")
        }
        defer { inFlight.signal() }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw unreachable(path, "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard let connected = withAddress(of: path, { connect(fd, $0, $1) }) else {
            throw unreachable(path, "the path is longer than a socket's 107 bytes; set AGENTD_SOCKET to a shorter one")
        }
        guard connected == 0 else { throw unreachable(path, errno: errno) }
        return try exchange(request, over: fd, path: path, timeout: timeout)
    }

    /// The exchange on a connected socket `fd` (the caller closes it).
    static func exchange(_ request: ControlRequest, over fd: Int32, path: String, timeout: Duration) throws -> ControlResponse {
        var limit = timeval(tv_sec: Int(timeout.components.seconds),
                            tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var line = try JSONEncoder().encode(request)
        line.append(0x0A)
        // An agent that refuses the connection (too many from this user) writes why and closes:
        // the write then fails, and the answer to read is that refusal.
        try send(line, to: fd, path: path, timeout: timeout)
        let answer = try readLine(from: fd, path: path, timeout: timeout, sent: request.command)
        do {
            return try JSONDecoder().decode(ControlResponseFields.self, from: Data(answer)).response(to: request.command)
        } catch {
            throw BGTaskScheduler.Error(.unavailable, "the agent at \(path) answered something this library cannot read (\(error))")
        }
    }

    /// Writes `line` whole; stops quietly when the agent has closed its end (`EPIPE`, with no
    /// SIGPIPE: `MSG_NOSIGNAL`), leaving its answer, if any, to be read.
    private static func send(_ line: Data, to fd: Int32, path: String, timeout: Duration) throws {
        try line.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let written = Glibc.send(fd, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0, errno == EINTR { continue }
                if written < 0, errno == EPIPE || errno == ECONNRESET { return }
                if written < 0, errno == EAGAIN || errno == EWOULDBLOCK { throw silent(path, timeout) }
                guard written > 0 else { throw unreachable(path, "write: \(String(cString: strerror(errno)))") }
                offset += written
            }
        }
    }

    /// The first line the agent sends, without its newline.
    private static func readLine(from fd: Int32, path: String, timeout: Duration, sent: ControlCommand) throws -> [UInt8] {
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !answer.contains(0x0A) {
            let count = read(fd, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { throw silent(path, timeout, sent: sent) }
            guard count > 0 else { throw unreachable(path, "the agent closed the connection without an answer") }
            answer.append(contentsOf: buffer[0..<count])
        }
        return Array(answer.prefix { $0 != 0x0A })
    }

    /// No answer in time; `sent` is the verb of a request the agent has whole (nil: it has
    /// not, so it cannot act on it).
    private static func silent(_ path: String, _ timeout: Duration, sent: ControlCommand? = nil) -> BGTaskScheduler.Error {
        BGTaskScheduler.Error(.unavailable, "agentd at \(path) did not answer within \(timeout) "
            + "(it may be overloaded or stuck: agentctl status says whether it answers; journalctl -u agentd, "
            + "or journalctl --user -u agentd for your own agent, what it logged)"
            + (sent?.changesState == true ? "; the request was sent and may still take effect when agentd gets to it: "
                + "once it answers, pendingTaskRequests() shows whether it is pending, before you submit it again" : ""))
    }

    private static func unreachable(_ path: String, _ why: String) -> BGTaskScheduler.Error {
        BGTaskScheduler.Error(.unavailable, "agentd at \(path) is not reachable (\(why))")
    }

    /// A refused `connect`, with what to do next, as agentctl says it.
    static func unreachable(_ path: String, errno: Int32) -> BGTaskScheduler.Error {
        let text = String(cString: strerror(errno))
        switch errno {
        case EACCES, EPERM:
            return unreachable(path, "\(text): the per-user agent's socket is its own user's alone, and the "
                + "system agent's is open to every local user; run the app as the user whose agent it is")
        case ENOENT, ECONNREFUSED:
            return unreachable(path, "\(text): is it running? systemctl --user status agentd for your own agent, "
                + "systemctl status agentd for the system's; another agent: set AGENTD_SOCKET to its socket")
        default:
            return unreachable(path, text)
        }
    }
}
