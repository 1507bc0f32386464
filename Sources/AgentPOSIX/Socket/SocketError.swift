// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A control-socket failure, with the `errno` behind it and a sentence for people.
///
/// The cases agentctl reacts to are distinct: `.noSocket` (ENOENT: nothing at the path — agentd is
/// not running or uses another `--socket`) and `.connectionRefused` (ECONNREFUSED: a stale socket
/// file, nobody listening) both mean "cannot reach agentd"; `.permissionDenied` means the user is
/// not allowed to connect (not root and not in group `agentd`).
public enum SocketError: Error, Equatable, Sendable, CustomStringConvertible {
    /// ENOENT: no socket file at the path.
    case noSocket(path: String)
    /// ECONNREFUSED: the socket file exists but no server is listening on it.
    case connectionRefused(path: String)
    /// EACCES or EPERM while connecting or binding.
    case permissionDenied(path: String)
    /// ENAMETOOLONG: the path does not fit in `sockaddr_un` (107 bytes).
    case pathTooLong(path: String)
    /// Server: something that is not a socket is in the way at the path (never removed).
    case notASocket(path: String)
    /// Server: another server is accepting connections on the path.
    case addressInUse(path: String)
    /// The operation (`connect`, `send`, `read`) did not complete in time.
    case timedOut(operation: String)
    /// The peer closed the connection (EPIPE, ECONNRESET) while we were sending.
    case connectionClosed
    /// A line longer than the limit arrived.
    case lineTooLong(limit: Int)
    /// Any other failing system call.
    case system(call: String, errno: Int32)

    /// The errno this error stands for.
    public var errno: Int32 {
        switch self {
        case .noSocket: return ENOENT
        case .connectionRefused: return ECONNREFUSED
        case .permissionDenied: return EACCES
        case .pathTooLong: return ENAMETOOLONG
        case .notASocket: return ENOTSOCK
        case .addressInUse: return EADDRINUSE
        case .timedOut: return ETIMEDOUT
        case .connectionClosed: return EPIPE
        case .lineTooLong: return EMSGSIZE
        case .system(_, let code): return code
        }
    }

    /// True when nothing answers at the path: agentd is not running there.
    public var isAgentUnreachable: Bool {
        switch self {
        case .noSocket, .connectionRefused: return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .noSocket(let path):
            return "no socket at \(path) (\(SocketError.text(ENOENT)))"
        case .connectionRefused(let path):
            return "nothing is listening on \(path) (\(SocketError.text(ECONNREFUSED)))"
        case .permissionDenied(let path):
            return "not allowed to use \(path) (\(SocketError.text(EACCES)))"
        case .pathTooLong(let path):
            return "socket path too long (at most 107 bytes): \(path)"
        case .notASocket(let path):
            return "\(path) exists and is not a socket; refusing to replace it"
        case .addressInUse(let path):
            return "another server is already listening on \(path) (another agentd? agentctl --socket \(path) status asks it; "
                + "give this one a socket of its own with --socket PATH)"
        case .timedOut(let operation):
            return "\(operation) timed out"
        case .connectionClosed:
            return "the connection was closed by the other side"
        case .lineTooLong(let limit):
            return "received a line longer than \(limit) bytes"
        case .system(let call, let code):
            return "\(call) failed: \(SocketError.text(code)) (errno \(code))"
        }
    }

    /// Maps the errno of a failed connect/bind on `path`.
    package static func forPath(_ path: String, call: String, errno code: Int32) -> SocketError {
        switch code {
        case ENOENT: return .noSocket(path: path)
        case ECONNREFUSED: return .connectionRefused(path: path)
        case EACCES, EPERM: return .permissionDenied(path: path)
        case ENAMETOOLONG: return .pathTooLong(path: path)
        case EADDRINUSE: return .addressInUse(path: path)
        case ENOTSOCK: return .notASocket(path: path)
        case EAGAIN, ETIMEDOUT: return .timedOut(operation: call)
        default: return .system(call: call, errno: code)
        }
    }

    package static func text(_ code: Int32) -> String { SystemError.text(code) }
}
