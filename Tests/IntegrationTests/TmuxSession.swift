// SPDX-License-Identifier: Apache-2.0
import AgentTestSupport
import Foundation
import Testing

/// A program running on a real pseudo-terminal inside a private tmux server: what a person would
/// see (`capture-pane`), the raw bytes the program wrote (`pipe-pane`), keys typed at it
/// (`send-keys`). The server is killed when the session is released.
final class TmuxSession {
    let server = "agentctl-test-\(UUID().uuidString.prefix(8))"
    let rawLogPath: String
    private let directory: String

    /// Starts `script` (a bash script body) in a `width`×`height` pane. The script starts only
    /// once the raw-output log is attached, so the log holds every byte from the first.
    init(width: Int, height: Int, script: String, directory: String) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.tmux) else {
            Issue.record("tmux is needed for the terminal tests: run scripts/install-deps.sh (or apt-get install tmux)")
            throw POSIXError(.ENOENT)
        }
        self.directory = directory
        rawLogPath = directory + "/\(server).raw"
        let scriptPath = directory + "/\(server).sh"
        // `wait-for go` holds the script until the test has attached pipe-pane.
        try "#!/bin/bash\n\(Self.tmux) -L \(server) wait-for go\n\(script)\n".write(toFile: scriptPath, atomically: false, encoding: .utf8)
        chmod(scriptPath, 0o755)
        let config = directory + "/\(server).conf"
        try "set -g status off\nset -g history-limit 0\n".write(toFile: config, atomically: false, encoding: .utf8)
        try startServer(["-f", config, "new-session", "-d", "-x", "\(width)", "-y", "\(height)", "-s", "main", "exec \(scriptPath)"])
        serverPID = Int32(try run(["display-message", "-p", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines))
        // Created first, so that waits can watch it with inotify from the start.
        try "".write(toFile: rawLogPath, atomically: false, encoding: .utf8)
        try run(["pipe-pane", "-t", "main", "cat >> \(rawLogPath)"])
        try run(["wait-for", "-S", "go"])
    }

    private var serverPID: Int32?

    deinit {
        _ = try? runCommand(Self.tmux, ["-L", server, "kill-server"])
        if let pid = serverPID, kill(pid, 0) == 0 { kill(pid, SIGKILL) }
    }

    /// The first tmux command forks the server, which would inherit every descriptor of this
    /// process — among them the socket through which Foundation's `Process` learns that a child
    /// ended, so a `Process` started meanwhile would never be seen to end. It is spawned here
    /// with only /dev/null open.
    private func startServer(_ arguments: [String]) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        _ = spawnFileActionsAddCloseFrom(&actions, 3)
        let argv: [UnsafeMutablePointer<CChar>?] = ([Self.tmux, "-L", server] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // Threads of the test process block most signals, and a spawned child keeps that mask:
        // tmux and the programs in its panes get a clean one and default handlers.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid = pid_t()
        let spawned = posix_spawn(&pid, Self.tmux, &actions, &attributes, argv, environ)
        guard spawned == 0 else {
            Issue.record("cannot start tmux: \(String(cString: strerror(spawned)))")
            throw POSIXError(.EIO)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            Issue.record("tmux \(arguments.joined(separator: " ")) failed (wait status \(status))")
            throw POSIXError(.EIO)
        }
    }

    static let tmux = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/bin/tmux"

    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let result = try runCommand(Self.tmux, ["-L", server] + arguments)
        guard result.status == 0 else {
            Issue.record("tmux \(arguments.joined(separator: " ")) failed: \(result.stderr)")
            throw POSIXError(.EIO)
        }
        return result.stdout
    }

    /// The screen as text, trailing blanks and blank lines at the bottom removed.
    func screen() throws -> String {
        let lines = try run(["capture-pane", "-p", "-t", "main"]).components(separatedBy: "\n")
            .map { String($0.reversed().drop(while: { $0 == " " }).reversed()) }
        return Array(lines.reversed().drop(while: \.isEmpty).reversed()).joined(separator: "\n")
    }

    /// A tmux format about the pane, e.g. `#{cursor_flag}` (1 when the cursor is visible).
    func display(_ format: String) throws -> String {
        try run(["display-message", "-p", "-t", "main", format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func sendKeys(_ keys: String...) throws {
        try run(["send-keys", "-t", "main"] + keys)
    }

    /// Looks at the screen each time the program writes to its terminal (inotify on the
    /// pipe-pane copy of its output: the screen changes only then) until `condition` holds, or
    /// fails the test after `timeout` seconds.
    @discardableResult
    func waitForScreen(timeout: Double = 30, sourceLocation: SourceLocation = #_sourceLocation,
                       _ condition: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        let output = InotifyWaiter.fileGrowth(rawLogPath)
        var last = ""
        while Date() < deadline {
            last = try screen()
            if condition(last) { return last }
            // tmux may copy the bytes out a moment before it redraws: re-look at least once a second.
            output?.wait(seconds: min(1, deadline.timeIntervalSinceNow))
        }
        Issue.record("the screen never showed what was expected within \(timeout) s; it shows:\n\(last)", sourceLocation: sourceLocation)
        throw POSIXError(.ETIMEDOUT)
    }

    /// Waits until the raw output (a file) satisfies `condition`, woken by each write to it
    /// (inotify), or fails the test after `timeout` seconds.
    func waitForRawOutput(timeout: Double = 30, sourceLocation: SourceLocation = #_sourceLocation,
                          _ condition: (String) -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        let output = InotifyWaiter.fileGrowth(rawLogPath)
        while Date() < deadline {
            if condition(rawOutput) { return }
            output?.wait(seconds: min(1, deadline.timeIntervalSinceNow))
        }
        Issue.record("the program's output never matched within \(timeout) s", sourceLocation: sourceLocation)
        throw POSIXError(.ETIMEDOUT)
    }

    /// Everything the program wrote to the terminal so far.
    var rawOutput: String {
        (try? String(contentsOfFile: rawLogPath, encoding: .utf8)) ?? ""
    }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which the Glibc module
/// does not expose: closes every descriptor from `from` up in the spawned child.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func spawnFileActionsAddCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32
