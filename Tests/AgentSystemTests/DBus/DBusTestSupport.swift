// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim
import Testing
@testable import AgentSystem

struct DBusTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A child process in its own session, with its stdout (and optionally stdin) on pipes and a
/// pidfd; killed and reaped when the value goes away, so no test leaves one behind.
final class TestChild {
    let pid: pid_t
    let name: String
    private let pidfd: Int32
    private var stdinFD: Int32 = -1
    private let stdoutFD: Int32
    private var buffered: [UInt8] = []
    private(set) var reaped = false

    init(_ path: String, _ arguments: [String], withStdin: Bool = false, quiet: Bool = false) throws {
        name = String(path.split(separator: "/").last ?? Substring(path))
        var output: [Int32] = [-1, -1]
        guard cshim_pipe_cloexec_nonblock(&output) == 0 else { throw DBusTestFailure("pipe: errno \(errno)") }
        var input: [Int32] = [-1, -1]
        if withStdin {
            guard cshim_pipe_cloexec_nonblock(&input) == 0 else { throw DBusTestFailure("pipe: errno \(errno)") }
            // The child's ends are blocking, as a program's stdio expects.
            TestChild.setBlocking(input[0])
        }
        TestChild.setBlocking(output[1])
        let devNull = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let devNullOut = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer {
            close(devNull)
            close(devNullOut)
            close(output[1])
            if withStdin { close(input[0]) }
        }
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let rc = cshim_spawn_session(&child, path, &argv, environ, withStdin ? input[0] : devNull, output[1], quiet ? devNullOut : 2)
        guard rc == 0 else {
            close(output[0])
            if withStdin { close(input[1]) }
            throw DBusTestFailure("spawn \(path): errno \(rc)")
        }
        pid = child
        pidfd = cshim_pidfd_open(child)
        stdoutFD = output[0]
        if withStdin { stdinFD = input[1] }
        guard pidfd >= 0 else {
            kill(child, SIGKILL)
            var status: Int32 = 0
            waitpid(child, &status, 0)
            reaped = true
            throw DBusTestFailure("pidfd_open: errno \(errno)")
        }
    }

    deinit {
        terminate()
        close(pidfd)
        close(stdoutFD)
        if stdinFD >= 0 { close(stdinFD) }
    }

    private static func setBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)
    }

    /// The next stdout line, waiting until `deadline`; nil at end of output or on timeout.
    func readLine(within limit: Duration = .seconds(20)) -> String? {
        let deadline = MonotonicInstant.now() + limit
        while true {
            if let newline = buffered.firstIndex(of: 0x0A) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(stdoutFD, &chunk, chunk.count)
            if count > 0 {
                buffered += chunk[..<count]
                continue
            }
            if count == 0 { return nil }
            guard errno == EAGAIN || errno == EINTR else { return nil }
            let left = MonotonicInstant.now().duration(to: deadline)
            guard left > .zero else { return nil }
            var pfd = pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, Int32(clamping: MonotonicInstant.clampedNanoseconds(of: left) / 1_000_000 + 1))
        }
    }

    /// Reads lines until one equals `expected`; throws on timeout or end of output.
    func expectLine(_ expected: String, within limit: Duration = .seconds(20)) throws {
        let deadline = MonotonicInstant.now() + limit
        while true {
            let left = MonotonicInstant.now().duration(to: deadline)
            guard left > .zero, let line = readLine(within: left) else {
                throw DBusTestFailure("\(name) did not print \"\(expected)\" within \(limit)")
            }
            if line == expected { return }
        }
    }

    /// Writes a line to the child's stdin. SIGPIPE (a child already gone) is blocked in this
    /// thread for the write and a pending one is consumed: the test sees EPIPE, not a dead process.
    func writeLine(_ text: String) {
        var bytes = Array((text + "\n").utf8)
        var signals: [Int32] = [SIGPIPE]
        let wasBlocked = cshim_signal_is_blocked(SIGPIPE) == 1
        if !wasBlocked { _ = cshim_block_signals(&signals, 1) }
        let written = write(stdinFD, &bytes, bytes.count)
        if written < 0 && errno == EPIPE {
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGPIPE)
            var zero = timespec(tv_sec: 0, tv_nsec: 0)
            _ = sigtimedwait(&set, nil, &zero)
        }
        if !wasBlocked { _ = cshim_unblock_signals(&signals, 1) }
    }

    /// Closes the child's stdin (the stand-in exits at its end).
    func closeStdin() {
        guard stdinFD >= 0 else { return }
        close(stdinFD)
        stdinFD = -1
    }

    /// Waits until the child exits (true) or `limit` passes (false); reaps it when it exited.
    @discardableResult
    func waitForExit(within limit: Duration) -> Bool {
        if reaped { return true }
        let deadline = MonotonicInstant.now() + limit
        while true {
            var code: Int32 = 0
            var status: Int32 = 0
            if cshim_pidfd_reap(pidfd, &code, &status) == 1 {
                reaped = true
                return true
            }
            let left = MonotonicInstant.now().duration(to: deadline)
            guard left > .zero else { return false }
            var pfd = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, Int32(clamping: MonotonicInstant.clampedNanoseconds(of: left) / 1_000_000 + 1))
        }
    }

    /// SIGTERM, a few seconds to exit, then SIGKILL; always reaps.
    func terminate() {
        guard !reaped else { return }
        _ = cshim_pidfd_send_signal(pidfd, SIGTERM)
        if waitForExit(within: .seconds(5)) { return }
        _ = cshim_pidfd_send_signal(pidfd, SIGKILL)
        var code: Int32 = 0
        var status: Int32 = 0
        _ = cshim_pidfd_reap_blocking(pidfd, &code, &status)
        reaped = true
    }
}

/// A private dbus-daemon listening on a unix socket in a temp directory.
final class PrivateBus {
    let directory: ConfigTempDirectory
    let address: String
    private var daemon: TestChild
    private let config: String

    init() throws {
        directory = try ConfigTempDirectory()
        config = directory.at("bus.conf")
        try ConfigFS.write(config, """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(directory.at("bus"))</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>

            """)
        (daemon, address) = try Self.launch(config)
    }

    private static func launch(_ config: String) throws -> (TestChild, String) {
        let candidates: [String] = ["/usr/bin/dbus-daemon", "/bin/dbus-daemon"]
        let path = candidates.first { access($0, X_OK) == 0 }
        guard let path else { throw DBusTestFailure("dbus-daemon is not installed (scripts/install-deps.sh installs it)") }
        // Quiet: as root it warns on every start that it may not raise its fd limit.
        let daemon = try TestChild(path, ["--config-file=\(config)", "--nofork", "--print-address"], quiet: true)
        // Printed once the socket is listening.
        guard let line = daemon.readLine(within: .seconds(20)), line.hasPrefix("unix:") else {
            throw DBusTestFailure("dbus-daemon printed no address")
        }
        return (daemon, line)
    }

    /// A new bus daemon at the same socket path, as after a restart (the old one is stopped
    /// first). Its address differs from `address` only in the guid.
    func restart() throws {
        daemon.terminate()
        (daemon, _) = try Self.launch(config)
    }

    /// The address without the daemon's guid, as a system bus address is written: still right
    /// after `restart`.
    var pathAddress: String { "unix:path=\(directory.at("bus"))" }

    /// Stops the bus daemon now (its clients see the connection close).
    func kill() { daemon.terminate() }

    deinit {
        // Before the directory with its socket goes.
        daemon.terminate()
    }
}

/// The power-profiles-daemon stand-in built from Tests/PowerProfilesStandIn, next to this test
/// bundle in the build directory.
final class PowerProfilesStandIn {
    static let executable: String = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        var directory = count > 0 ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "."
        directory = String(directory[..<(directory.lastIndex(of: "/") ?? directory.endIndex)])
        // Inside an .xctest bundle directory on some layouts.
        if directory.hasSuffix(".xctest") {
            directory = String(directory[..<(directory.lastIndex(of: "/") ?? directory.endIndex)])
        }
        return directory + "/power-profiles-stand-in"
    }()

    let child: TestChild

    /// Starts the stand-in and waits until it owns its name.
    init(address: String, profile: String, upower: Bool = false) throws {
        child = try TestChild(Self.executable, (upower ? ["--upower"] : []) + ["--profile", profile, address],
                              withStdin: true)
        try child.expectLine("ready")
    }

    /// Changes the profile (PropertiesChanged is on the bus when this returns).
    func set(_ profile: String) throws {
        child.writeLine(profile)
        try child.expectLine("set \(profile)")
    }

    /// Ends the stand-in through the end of its stdin, and waits for it.
    func quit() {
        child.closeStdin()
        if !child.waitForExit(within: .seconds(10)) { child.terminate() }
    }
}

/// What a monitor reported, in order.
final class ProfileRecorder {
    var reports: [String?] = []
    var statuses: [PowerProfilesMonitor.Status] = []
}

