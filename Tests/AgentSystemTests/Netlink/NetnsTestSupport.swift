// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim
import Testing
@testable import AgentSystem

/// Why a helper process could not be used.
struct NetnsTestError: Error, CustomStringConvertible {
    let description: String
}

/// A helper process: spawned with stdout and stderr on one pipe, waited for through its pidfd with
/// a deadline (never a sleep).
final class HelperProcess {
    let pid: pid_t
    private let pidfd: Int32
    private let outputFD: Int32
    private var reaped = false
    private(set) var output: [UInt8] = []

    init(_ arguments: [String]) throws {
        var fds: [Int32] = [-1, -1]
        guard cshim_pipe_cloexec_nonblock(&fds) == 0 else { throw NetnsTestError(description: "pipe2: \(errno)") }
        let devNull = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer {
            close(devNull)
            close(fds[1])
        }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/sbin:/usr/bin:/sbin:/bin"), nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let rc = cshim_spawn_session(&pid, arguments[0], &argv, &envp, devNull, fds[1], fds[1])
        guard rc == 0 else {
            close(fds[0])
            throw NetnsTestError(description: "spawn \(arguments): errno \(rc)")
        }
        self.pid = pid
        self.outputFD = fds[0]
        self.pidfd = cshim_pidfd_open(pid)
        precondition(pidfd >= 0, "pidfd_open failed: \(errno)")
    }

    /// Reads what is available on the output pipe.
    @discardableResult
    func readOutput() -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(outputFD, &buffer, buffer.count)
            guard n > 0 else { break }
            output += buffer[0..<n]
        }
        return outputText
    }

    var outputText: String { String(decoding: output, as: UTF8.self) }

    /// Waits until the output holds `text`, at most `limit`. False on timeout or EOF without it.
    func waitForOutput(_ text: String, limit: Duration = .seconds(30)) -> Bool {
        let deadline = MonotonicInstant.now() + limit
        while !readOutput().contains(text) {
            let left = deadline - MonotonicInstant.now()
            guard left > .zero else { return false }
            let ms = Int32(clamping: MonotonicInstant.clampedNanoseconds(of: left) / 1_000_000 + 1)
            guard cshim_poll_readable(outputFD, ms) > 0 else { return false }
            if hasExited { return readOutput().contains(text) }
        }
        return true
    }

    private var hasExited: Bool { cshim_poll_readable(pidfd, 0) > 0 }

    /// Waits for the exit (the pidfd turns readable), at most `limit`, then reaps. Returns the exit
    /// status, or nil on timeout or death by signal.
    func wait(limit: Duration = .seconds(30)) -> Int32? {
        let deadline = MonotonicInstant.now() + limit
        while !hasExited {
            let left = deadline - MonotonicInstant.now()
            guard left > .zero else { return nil }
            let ms = Int32(clamping: MonotonicInstant.clampedNanoseconds(of: left) / 1_000_000 + 1)
            _ = cshim_poll_readable(pidfd, ms)
        }
        readOutput()
        var code: Int32 = 0
        var status: Int32 = 0
        guard cshim_pidfd_reap(pidfd, &code, &status) == 1 else { return nil }
        reaped = true
        return code == CSHIM_CLD_EXITED ? status : nil
    }

    /// SIGKILL, then wait (with a deadline) and reap. Idempotent.
    func kill() {
        guard !reaped else { return }
        _ = cshim_pidfd_send_signal(pidfd, SIGKILL)
        _ = wait(limit: .seconds(30))
    }

    deinit {
        kill()
        close(pidfd)
        close(outputFD)
    }
}

/// A long-lived process in a fresh network namespace (`unshare -n`), the stage for tests that talk
/// to the real kernel without touching the host's network or devices. Its pid names the namespace
/// (`/proc/PID/ns/net`) for `networkNamespaceOf:` parameters and for `nsenter -t PID -n`.
final class NetworkNamespace {
    private let process: HelperProcess
    var pid: pid_t { process.pid }

    init() throws {
        // sh prints "ready" only after unshare(CLONE_NEWNET) succeeded; exec keeps the pid.
        process = try HelperProcess(["/usr/bin/unshare", "-n", "/bin/sh", "-c", "echo ready; exec sleep 600"])
        guard process.waitForOutput("ready") else {
            throw NetnsTestError(description: "unshare -n did not start: \(process.outputText)")
        }
    }

    /// Runs a command inside the namespace (`nsenter -t PID -n …`) and waits for it with a deadline.
    @discardableResult
    func run(_ arguments: String...) throws -> String {
        let command = try HelperProcess(["/usr/bin/nsenter", "-t", "\(pid)", "-n"] + arguments)
        let status = command.wait()
        guard status == 0 else {
            throw NetnsTestError(description: "\(arguments.joined(separator: " ")) failed (\(String(describing: status))): \(command.outputText)")
        }
        return command.outputText
    }

    /// Kills the process (the namespace goes with its last user).
    func stop() {
        process.kill()
    }

    deinit { stop() }
}

/// Runs `loop` until `condition()` holds, at most `limit`; false on timeout. The limit only bounds
/// a broken test.
func runLoop(_ loop: EventLoop, until condition: () -> Bool, limit: Duration = .seconds(30)) -> Bool {
    let deadline = MonotonicInstant.now() + limit
    while !condition() {
        let left = deadline - MonotonicInstant.now()
        guard left > .zero else { return false }
        loop.runOnce(timeout: left)
    }
    return true
}
