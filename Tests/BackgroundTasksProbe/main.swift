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

/// A flag and a count the expiration handler and the work share.
final class Stop: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    private var calls = 0
    var isStopped: Bool { lock.withLock { stopped } }
    var expirationCalls: Int { lock.withLock { calls } }
    func expire() { lock.withLock { stopped = true; calls += 1 } }
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
            Thread.sleep(forTimeInterval: 0.5)
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

    /// Works synchronously on its serial queue until the expiration handler stops it, then
    /// waits a moment for any further SIGTERM before saying how often it was told.
    func handleBlocking(task: BGTask) {
        let stop = Stop()
        task.expirationHandler = { stop.expire() }
        say("working")
        while !stop.isStopped { usleep(5_000) }
        Thread.sleep(forTimeInterval: 0.5)
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
    // The rest of the launch, after registering (applicationDidFinishLaunching's work).
    Thread.sleep(forTimeInterval: 0.3)
    delegate.state.configuredServer = "https://example.com"
    dispatchMain()
}
