// SPDX-License-Identifier: Apache-2.0
// An app ported from iOS the way Apple's samples are written, one behaviour per identifier, for
// IntegrationTests/LibraryLaunchTests: it registers its handlers first and sets up its state
// after (AppDelegate style), captures a non-Sendable delegate in them, works in a loop until its
// expiration handler says stop, and, in one mode, forgets dispatchMain().
import BackgroundTasks
import Foundation

/// State main sets up after registering, read by the handlers.
final class AppState: @unchecked Sendable {
    private let lock = NSLock()
    private var server: String?
    var configuredServer: String? {
        get { lock.withLock { server } }
        set { lock.withLock { server = newValue } }
    }
}

/// What the expiration handler tells the work: a semaphore the work waits on (the pattern Apple
/// supports: a handler blocked until its expiration handler signals it), and how often it was told.
final class Stop: @unchecked Sendable {
    private let lock = NSLock()
    private var calls = 0
    let told = DispatchSemaphore(value: 0)
    var expirationCalls: Int { lock.withLock { calls } }
    func expire() {
        lock.withLock { calls += 1 }
        told.signal()
    }
}

func say(_ text: String) {
    FileHandle.standardError.write(Data(("probe: " + text + "\n").utf8))
}

/// Apple's AppDelegate shape: a class, not Sendable, whose methods the handlers call on `self`.
final class AppDelegate {
    let state = AppState()

    func registerHandlers() {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: "local.probe-late-state", using: nil) { task in
            self.handleLateState(task: task)
        }
        BGTaskScheduler.shared.register(forTaskWithIdentifier: "local.probe-blocking",
                                        using: DispatchQueue(label: "probe.serial")) { task in
            self.handleBlocking(task: task)
        }
        BGTaskScheduler.shared.register(forTaskWithIdentifier: "local.probe-exit-early", using: nil) { task in
            // Work that outlasts main's return: it waits for what the app would bring in.
            _ = DispatchSemaphore(value: 0).wait(timeout: .now() + 30)
            say("work done")
            task.setTaskCompleted(success: true)
        }
        BGTaskScheduler.shared.register(forTaskWithIdentifier: "local.probe-main-waits", using: nil) { task in
            say("handler ran")
            task.setTaskCompleted(success: true)
        }
    }

    func handleLateState(task: BGTask) {
        let server = state.configuredServer
        say("server at handler start: \(server ?? "nil")")
        task.setTaskCompleted(success: server != nil)
    }

    /// Holds its serial queue until the expiration handler tells it to stop, then says how often
    /// it was told.
    func handleBlocking(task: BGTask) {
        let stop = Stop()
        task.expirationHandler = { stop.expire() }
        say("working")
        stop.told.wait()
        say("expirationHandler calls: \(stop.expirationCalls)")
        task.setTaskCompleted(success: false)
    }
}

let delegate = AppDelegate()
delegate.registerHandlers()
// Started by hand (not by agentd): what the app sees of its pending requests, and withdrawing them.
if ProcessInfo.processInfo.environment["AGENTD_IDENTIFIER"] == nil {
    switch CommandLine.arguments.dropFirst().first {
    case "pending":
        BGTaskScheduler.shared.getPendingTaskRequests { requests in
            print(requests.map(\.identifier).sorted().joined(separator: " "))
            exit(0)
        }
        dispatchMain()
    case "cancel-all":
        BGTaskScheduler.shared.cancelAllTaskRequests()
        exit(0)
    default:
        say("usage: background-tasks-probe pending|cancel-all")
        exit(2)
    }
}
switch ProcessInfo.processInfo.environment["AGENTD_IDENTIFIER"] {
case "local.probe-exit-early":
    say("main returns without dispatchMain()")
    exit(0)
case "local.probe-main-waits":
    // Never hands the main queue over.
    DispatchSemaphore(value: 0).wait()
default:
    // The rest of the launch, after registering (applicationDidFinishLaunching's work): it reads
    // its settings, then sets what the handlers use.
    _ = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)
    delegate.state.configuredServer = "https://example.com"
    dispatchMain()
}
