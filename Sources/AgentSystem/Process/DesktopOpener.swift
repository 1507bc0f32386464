// SPDX-License-Identifier: Apache-2.0
import AgentCore
import CShim
import Glibc

/// Opens a path or URL with the desktop's handler: `xdg-open TARGET`, found on the agent's
/// `PATH`, started as the agent's own user with the agent's environment (the per-user agent's
/// session: `DISPLAY`, `WAYLAND_DISPLAY`, the session bus), in a session of its own, stdin and
/// output on /dev/null — argv only, never through a shell. Its exit is reaped through a pidfd on
/// the loop; a failure is logged. At most ``maximumLive`` openers run at once (a person clicks;
/// nothing else starts one), so a stuck handler cannot pile up processes.
///
/// Loop-thread only.
public final class DesktopOpener {
    public static let maximumLive = 4
    public static let program = "xdg-open"

    private let loop: any EventLooping
    private let searchPath: String
    private let log: (String) -> Void
    private var live: [pid_t: ChildExitWatch] = [:]

    /// `searchPath`: the `PATH` to find `xdg-open` on (the agent's own).
    public init(loop: any EventLooping, searchPath: String, log: @escaping (String) -> Void) {
        self.loop = loop
        self.searchPath = searchPath
        self.log = log
    }

    deinit {
        for watch in live.values { watch.cancel() }
    }

    /// The first executable `xdg-open` of `searchPath`'s absolute entries.
    public static func find(on searchPath: String) -> String? {
        for entry in searchPath.split(separator: ":") where entry.hasPrefix("/") {
            let candidate = (entry.hasSuffix("/") ? String(entry.dropLast()) : String(entry)) + "/" + program
            var info = stat()
            if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }

    /// Starts `xdg-open target`; says in the log why not when it cannot.
    public func open(_ target: String) {
        guard live.count < Self.maximumLive else {
            log("not opening \(target): \(Self.maximumLive) \(Self.program) processes still run (a handler that does not return?)")
            return
        }
        guard let executable = Self.find(on: searchPath) else {
            log("cannot open \(target): no \(Self.program) on PATH (\(searchPath)); install xdg-utils")
            return
        }
        let devNull = Glibc.open("/dev/null", O_RDWR | O_CLOEXEC)
        guard devNull >= 0 else {
            log("cannot open \(target): /dev/null: \(String(cString: strerror(errno)))")
            return
        }
        defer { close(devNull) }
        let arguments = [executable, target]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = cshim_spawn_session(&pid, executable, &argv, environ, devNull, devNull, devNull)
        guard result == 0 else {
            log("cannot open \(target): \(executable): \(String(cString: strerror(result)))")
            return
        }
        // Without a watch (it has gone already) the subreaper's stray-children sweep reaps it.
        live[pid] = ChildExitWatch(pid: pid, loop: loop) { [weak self] termination in
            self?.exited(pid, target: target, termination)
        }
    }

    /// Opener processes whose exit is still awaited.
    var liveCount: Int { live.count }

    /// nil: a run's end reaped it first, with every exited stray child, and its status went with it.
    private func exited(_ pid: pid_t, target: String, _ termination: ProcessTermination?) {
        live[pid] = nil
        switch termination {
        case .signaled(let signal)?:
            log("\(Self.program) \(target) was killed by signal \(signal)")
        case .exited(let status)? where status != 0:
            log("\(Self.program) \(target) exited \(status) (no handler for it, or it failed)")
        default:
            break
        }
    }
}
