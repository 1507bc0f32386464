// SPDX-License-Identifier: Apache-2.0
import AgentTestSupport
import Foundation
import Synchronization
import Testing

/// Where `swift build` put agentd and agentctl: next to this test bundle, or AGENTD_BIN_DIR.
enum Binaries {
    static let directory: String = {
        if let dir = ProcessInfo.processInfo.environment["AGENTD_BIN_DIR"] { return dir }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        var url = URL(fileURLWithPath: exe).deletingLastPathComponent()
        // Inside an .xctest bundle directory on some layouts.
        if url.lastPathComponent.hasSuffix(".xctest") { url.deleteLastPathComponent() }
        return url.path
    }()
    static var agentd: String { directory + "/agentd" }
    static var agentctl: String { directory + "/agentctl" }
}

/// A scratch config/state/socket tree for one agent, removed at the end.
final class Sandbox {
    let root: String
    var configDirectory: String { root + "/etc" }
    var jobsDirectory: String { root + "/etc/jobs.d" }
    var manifestsDirectory: String { root + "/etc/manifests.d" }
    var stateDirectory: String { root + "/state" }
    var socketPath: String { root + "/agentd.sock" }
    var pluginPath: String { root + "/plugin" }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("agentd-it-\(UUID().uuidString.prefix(8))").path
        let fm = FileManager.default
        try fm.createDirectory(atPath: jobsDirectory, withIntermediateDirectories: true)
        try fm.createDirectory(atPath: manifestsDirectory, withIntermediateDirectories: true)
        try write("manifests.d/local.manifest", "[Manifest]\nPermittedIdentifiers=local.*\nBackgroundModes=refresh processing continued\n")
        try "#!/bin/sh\nexit 0\n".write(toFile: pluginPath, atomically: false, encoding: .utf8)
        chmod(pluginPath, 0o755)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Writes a config file in place (open, write, close), relative to the config directory.
    func write(_ relativePath: String, _ contents: String, mode: mode_t = 0o644) throws {
        let path = configDirectory + "/" + relativePath
        try contents.write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, mode)
    }

    /// Writes a temp file and renames it into place, as editors and package managers do.
    func writeAtomically(_ relativePath: String, _ contents: String) throws {
        let path = configDirectory + "/" + relativePath
        let directory = (path as NSString).deletingLastPathComponent
        let temp = directory + "/." + (path as NSString).lastPathComponent + ".swp"
        try contents.write(toFile: temp, atomically: false, encoding: .utf8)
        chmod(temp, 0o644)
        guard rename(temp, path) == 0 else { throw POSIXError(.EIO) }
    }

    /// Writes an executable `#!/bin/sh` script `NAME.sh` in the sandbox; returns its path.
    func script(_ name: String, _ body: String) throws -> String {
        let path = root + "/\(name).sh"
        try ("#!/bin/sh\n" + body).write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    func jobFile(_ name: String, kind: String = "processing", interval: String = "1h") -> String {
        "[Job]\nIdentifier=local.\(name)\nKind=\(kind)\nExec=\(pluginPath)\nInterval=\(interval)\n"
    }
}

/// A real agentd process on a sandbox, with its stderr log collected line by line so tests can
/// wait for the event they expect (with a deadline) instead of sleeping.
final class AgentProcess {
    let sandbox: Sandbox
    let process = Process()
    private let log = LogLines()
    private let logPipe = Pipe()

    /// A `/proc` without PSI files, unless the test passes its own `--proc-root`: the host's
    /// memory pressure (other work on a loaded machine) would hold or shed the test's runs.
    private let procTree: FakeProcTree?

    /// - Parameter wrapper: a command that execs agentd in place (e.g. `unshare -n --`, for a
    ///   network namespace of its own): the process id stays agentd's.
    init(sandbox: Sandbox, extraArguments: [String] = [], environment: [String: String] = [:],
         wrapper: [String] = []) throws {
        self.sandbox = sandbox
        var extraArguments = extraArguments
        if extraArguments.contains("--proc-root") {
            procTree = nil
        } else {
            let tree = try FakeProcTree.withoutPressure()
            procTree = tree
            extraArguments += ["--proc-root", tree.procRoot]
        }
        process.executableURL = URL(fileURLWithPath: wrapper.first ?? Binaries.agentd)
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.arguments = Array(wrapper.dropFirst()) + (wrapper.isEmpty ? [] : [Binaries.agentd])
            + ["--config-dir", sandbox.configDirectory, "--state-dir", sandbox.stateDirectory,
               "--socket", sandbox.socketPath] + extraArguments
        process.standardError = logPipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        log.follow(logPipe)
        try waitForLog("ready:")
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    var logLines: [String] { log.lines.withLock { $0 } }

    /// Waits until a log line contains `text` (counting from line `after`), or fails the test.
    @discardableResult
    func waitForLog(_ text: String, after: Int = 0, timeout: Double = 20,
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        if let found = log.firstLine(after: after, until: Date().addingTimeInterval(timeout), where: { $0.contains(text) }) {
            return found.line
        }
        Issue.record("no log line containing \"\(text)\" within \(timeout) s; log:\n\(logExcerpt)", sourceLocation: sourceLocation)
        throw POSIXError(.ETIMEDOUT)
    }

    /// The log's last 30 lines and, when the agent crashed, the crash report's head: its
    /// message and the crashed thread come first, and its tail (registers, images) says little.
    var logExcerpt: String {
        let lines = logLines
        let tail = lines.suffix(30)
        let markers = ["Fatal error", "Program crashed", "Crash at", "Thread 0 crashed"]
        guard let start = lines.firstIndex(where: { line in markers.contains { line.contains($0) } }),
              start < tail.startIndex else {
            return tail.joined(separator: "\n")
        }
        let head = lines[start..<min(start + 60, tail.startIndex)]
        return (head + ["…"] + tail).joined(separator: "\n")
    }

    /// Runs agentctl against this agent.
    func ctl(_ arguments: String...) throws -> CommandResult {
        try runCommand(Binaries.agentctl, ["--socket", sandbox.socketPath] + arguments)
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

/// The agent's log lines, appended from the pipe reader's thread.
final class LogLines: @unchecked Sendable {
    let lines = Mutex<[String]>([])
    /// Signalled on every batch of new lines and at end of file, so waiters wake on the event.
    let arrived = NSCondition()
    private(set) var closed = false

    func append(_ new: [String]) {
        lines.withLock { $0.append(contentsOf: new) }
        arrived.lock()
        arrived.broadcast()
        arrived.unlock()
    }

    func close() {
        arrived.lock()
        closed = true
        arrived.broadcast()
        arrived.unlock()
    }

    /// Collects `pipe`'s lines (a child's output, the child already started) on a plain thread
    /// blocked in read(2) until the pipe ends: no dispatch source on the descriptor (Foundation's
    /// readabilityHandler crashed the test process now and then while the pipe was torn down).
    /// The test's own copy of the write end is closed, so the end comes when the child's does.
    func follow(_ pipe: Pipe) {
        let descriptor = dup(pipe.fileHandleForReading.fileDescriptor)
        try? pipe.fileHandleForWriting.close()
        Thread { [self] in
            var partial = ""
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                partial += String(decoding: buffer[0..<count], as: UTF8.self)
                var parts = partial.components(separatedBy: "\n")
                partial = parts.removeLast()
                append(parts)
            }
            Glibc.close(descriptor)
            close()
        }.start()
    }

    /// The first line from index `after` on that `matches`, with its index, waiting until
    /// `deadline` for it (woken by each batch of lines); nil when none came.
    func firstLine(after: Int = 0, until deadline: Date,
                   where matches: (String) -> Bool) -> (line: String, index: Int)? {
        var scanned = after
        // Looks only at lines not seen yet, inside the lock: no copy of the whole log per wakeup.
        func newMatch() -> (line: String, index: Int)? {
            lines.withLock { all in
                defer { scanned = max(scanned, all.count) }
                guard scanned < all.count else { return nil }
                return (scanned..<all.count).first { matches(all[$0]) }.map { (all[$0], $0) }
            }
        }
        arrived.lock()
        defer { arrived.unlock() }
        while true {
            if let found = newMatch() { return found }
            if closed || !arrived.wait(until: deadline) { break }
        }
        return newMatch()
    }
}

struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs a program to completion, capturing its output.
///
/// The output goes to unlinked temporary files, read once the program has exited, not to pipes
/// read to EOF: Foundation's Process lets a child another test spawns at the same moment inherit
/// the pipes' write ends, and EOF then waits for that child (a test's D-Bus stand-in, alive until
/// its test ends). With `TestUser`'s lock held around `userdel`, that test waited for the lock
/// and the suite hung.
func runCommand(_ path: String, _ arguments: [String], environment: [String: String]? = nil,
                currentDirectory: String? = nil) throws -> CommandResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
    let out = try CapturedOutput(), err = try CapturedOutput()
    process.standardOutput = out.handle
    process.standardError = err.handle
    try process.run()
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus, stdout: out.text(), stderr: err.text())
}

/// An unlinked temporary file a child writes its output to.
private final class CapturedOutput {
    let handle: FileHandle

    init() throws {
        var template = Array("/tmp/agentd-test-output.XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { buffer in if let path = buffer.baseAddress { unlink(path) } }
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// Everything written so far (a regular file: its end is there at once).
    func text() -> String {
        guard (try? handle.seek(toOffset: 0)) != nil, let data = try? handle.readToEnd() else { return "" }
        return String(decoding: data, as: UTF8.self)
    }
}

func json(_ text: String) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(text.utf8))
}

/// The jobs agentctl list --json reports, by identifier.
func listedJobs(_ agent: AgentProcess) throws -> [String: [String: Any]] {
    let result = try agent.ctl("list", "--json")
    #expect(result.status == 0, "agentctl list failed: \(result.stderr)")
    let array = try json(result.stdout) as? [[String: Any]] ?? []
    var byID: [String: [String: Any]] = [:]
    for job in array { if let id = job["identifier"] as? String { byID[id] = job } }
    return byID
}
