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

    static func exchange(_ request: ControlRequest, path: String = AgentSocket.path()) throws -> ControlResponse {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw unreachable(path, "socket: \(errno)") }
        defer { close(fd) }
        guard let connected = withAddress(of: path, { connect(fd, $0, $1) }) else {
            throw unreachable(path, "path too long")
        }
        guard connected == 0 else { throw unreachable(path, String(cString: strerror(errno))) }
        var line = try JSONEncoder().encode(request)
        line.append(0x0A)
        try line.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let written = write(fd, base + offset, raw.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { throw unreachable(path, "write: \(String(cString: strerror(errno)))") }
                offset += written
            }
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !answer.contains(0x0A) {
            let count = read(fd, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw unreachable(path, "the agent closed the connection without an answer") }
            answer.append(contentsOf: buffer[0..<count])
        }
        let first = answer.prefix { $0 != 0x0A }
        do {
            return try JSONDecoder().decode(ControlResponseFields.self, from: Data(first)).response(to: request.command)
        } catch {
            throw BGTaskScheduler.Error(.unavailable, "the agent at \(path) answered something this library cannot read (\(error))")
        }
    }

    private static func unreachable(_ path: String, _ why: String) -> BGTaskScheduler.Error {
        BGTaskScheduler.Error(.unavailable, "agentd at \(path) is not reachable (\(why))")
    }
}
