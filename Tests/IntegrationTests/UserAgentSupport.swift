// SPDX-License-Identifier: Apache-2.0
import AgentTestSupport
import Foundation
import Synchronization
import Testing

/// A throwaway unprivileged user (useradd), removed with its group when the value goes away.
final class TestUser {
    let name: String
    let uid: UInt32
    let gid: UInt32

    /// useradd and userdel refuse, rather than wait, while another holds /etc/passwd's lock; the
    /// only other holders are this process's parallel tests, so they take turns here.
    private static let userDatabase = Mutex(())

    init() throws {
        name = "agtu" + String(UUID().uuidString.lowercased().filter(\.isHexDigit).prefix(8))
        let name = self.name
        let result = try Self.userDatabase.withLock { _ in
            try runCommand("/usr/sbin/useradd", ["-M", "-U", "-s", "/usr/sbin/nologin", name])
        }
        guard result.status == 0, let entry = getpwnam(name) else {
            throw TestUserError("useradd \(name) failed (exit \(result.status)): \(result.stderr)")
        }
        uid = entry.pointee.pw_uid
        gid = entry.pointee.pw_gid
    }

    /// Runs `body` while no test adds or removes a user: a copy of /etc taken meanwhile could
    /// meet useradd's lock files vanishing between listing and copying.
    static func whileNoUserChanges<T: Sendable>(_ body: () throws -> T) throws -> T {
        try userDatabase.withLock { _ in try body() }
    }

    deinit {
        let name = self.name
        Self.userDatabase.withLock { _ in _ = try? runCommand("/usr/sbin/userdel", ["-f", name]) }
    }

    /// `setpriv` arguments that run a program as this user, with its groups.
    var setpriv: [String] { ["--reuid=\(uid)", "--regid=\(gid)", "--init-groups", "--"] }
}

struct TestUserError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A user's little world in a temp directory: a home, a runtime directory (XDG_RUNTIME_DIR) and
/// the environment a login session would give agentd --user and agentctl.
final class UserSession {
    let user: TestUser
    let root: String
    var home: String { root + "/home" }
    var runtimeDirectory: String { root + "/run" }
    var configDirectory: String { home + "/.config/agentd" }
    var stateDirectory: String { home + "/.local/state/agentd" }
    var socketPath: String { runtimeDirectory + "/agentd.sock" }
    /// Extra variables for agentd (a session bus address, XDG_DATA_DIRS).
    var extraEnvironment: [String: String] = [:]

    /// `runtimeMode`: XDG_RUNTIME_DIR is 0700 in a real session; a test that checks the
    /// socket's own mode makes it traversable (0711).
    init(user: TestUser, runtimeMode: mode_t = 0o700) throws {
        self.user = user
        root = FileManager.default.temporaryDirectory.appendingPathComponent("agentd-ua-\(UUID().uuidString.prefix(8))").path
        for (path, mode) in [(root, mode_t(0o755)), (home, 0o755), (runtimeDirectory, runtimeMode)] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            chmod(path, mode)
            chown(path, user.uid, user.gid)
        }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    var environment: [String: String] {
        ["HOME": home, "XDG_RUNTIME_DIR": runtimeDirectory, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
         "XDG_DATA_DIRS": root + "/share"].merging(extraEnvironment) { $1 }
    }

    /// Writes a file owned by the user (mode 0644 unless told), creating its directory.
    func write(_ path: String, _ contents: String, mode: mode_t = 0o644) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chown(directory, user.uid, user.gid)
        try contents.write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, mode)
        chown(path, user.uid, user.gid)
    }

    /// An executable `#!/bin/sh` plugin in the home directory; returns its path.
    func plugin(_ name: String, _ body: String) throws -> String {
        let path = home + "/\(name).sh"
        try write(path, "#!/bin/sh\n" + body, mode: 0o755)
        return path
    }

    /// agentctl as this user, in this session (no AGENTD_SOCKET: the socket is chosen by rule).
    func ctl(_ arguments: [String], environment extra: [String: String] = [:]) throws -> CommandResult {
        try runCommand("/usr/bin/setpriv", user.setpriv + [Binaries.agentctl] + arguments,
                       environment: environment.merging(extra) { $1 })
    }

    func ctl(_ arguments: String...) throws -> CommandResult { try ctl(arguments) }
}

/// A child process whose stdout or stderr lines are collected, so a test waits for the line it
/// expects (with a deadline) instead of sleeping.
final class LineCollectingProcess {
    let process = Process()
    let name: String
    /// SIGTERM for agentd; helpers (dbus-daemon, servers) get SIGKILL: a child of the test
    /// process may inherit SIGTERM blocked, and they need no clean stop.
    let stopSignal: Int32
    private let lines = LogLines()
    private let input = Pipe()

    init(name: String, executable: String, arguments: [String], environment: [String: String]? = nil,
         collectStderr: Bool, quietStderr: Bool = false, stopSignal: Int32 = SIGKILL) throws {
        self.name = name
        self.stopSignal = stopSignal
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = Pipe()
        if collectStderr {
            process.standardError = pipe
            process.standardOutput = FileHandle.nullDevice
        } else {
            process.standardOutput = pipe
            if quietStderr { process.standardError = FileHandle.nullDevice }
        }
        process.standardInput = input
        try process.run()
        lines.follow(pipe)
    }

    deinit { stop() }

    var allLines: [String] { lines.lines.withLock { $0 } }

    /// Waits for a line (from line `after` on) that satisfies `matches`; returns it and its index.
    @discardableResult
    func waitForLine(after: Int = 0, timeout: Double = 20, _ description: String,
                     sourceLocation: SourceLocation = #_sourceLocation,
                     where matches: (String) -> Bool) throws -> (line: String, index: Int) {
        if let found = lines.firstLine(after: after, until: Date().addingTimeInterval(timeout), where: matches) {
            return found
        }
        Issue.record("\(name): no line \(description) within \(timeout) s; last lines:\n\(allLines.suffix(30).joined(separator: "\n"))",
                     sourceLocation: sourceLocation)
        throw POSIXError(.ETIMEDOUT)
    }

    /// Waits until the process has printed more than `count` lines or `deadline` passed; returns
    /// whether it has.
    func waitForMoreLines(than count: Int, until deadline: Date) -> Bool {
        lines.firstLine(after: count, until: deadline) { _ in true } != nil
    }

    @discardableResult
    func waitForLine(containing text: String, after: Int = 0, timeout: Double = 20,
                     sourceLocation: SourceLocation = #_sourceLocation) throws -> (line: String, index: Int) {
        try waitForLine(after: after, timeout: timeout, "containing \"\(text)\"", sourceLocation: sourceLocation) {
            $0.contains(text)
        }
    }

    func writeLine(_ text: String) {
        input.fileHandleForWriting.write(Data((text + "\n").utf8))
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, stopSignal)
            process.waitUntilExit()
        }
    }
}

/// `agentd --user` run as the session's user through setpriv (no --config-dir, --state-dir or
/// --socket: the XDG variables decide), its log collected. Like AgentProcess, it gets a /proc
/// without PSI files, so the host's memory pressure cannot hold or shed the test's runs.
final class UserAgent {
    let session: UserSession
    let child: LineCollectingProcess
    private let procTree: FakeProcTree

    init(_ session: UserSession) throws {
        self.session = session
        procTree = try FakeProcTree.withoutPressure()
        child = try LineCollectingProcess(
            name: "agentd --user", executable: "/usr/bin/setpriv",
            arguments: session.user.setpriv + [Binaries.agentd, "--user", "--proc-root", procTree.procRoot],
            environment: session.environment,
            collectStderr: true, stopSignal: SIGTERM)
        try child.waitForLine(containing: "ready:")
    }

    @discardableResult
    func waitForLog(_ text: String, after: Int = 0, timeout: Double = 20,
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try child.waitForLine(containing: text, after: after, timeout: timeout, sourceLocation: sourceLocation).line
    }

    var logLines: [String] { child.allLines }

    func stop() { child.stop() }
}
