// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The work agentd launched this process for (Apple's `BGTask`). The process is the run: its
/// output lines are the plugin protocol (DESIGN §5) and its exit status the result.
open class BGTask: NSObject, @unchecked Sendable {
    public let identifier: String
    private let lock = NSLock()
    private var handler: (() -> Void)?
    /// `setTaskCompleted` was called: the first call's result is the run's.
    private var completed = false
    /// The agent expired the run (the first SIGTERM was handled).
    private var expired = false
    let output: TaskOutput
    /// How the process ends (tests watch it instead; set before any call).
    var ending = Ending.process

    init(identifier: String, output: TaskOutput) {
        self.identifier = identifier
        self.output = output
        super.init()
    }

    /// What `setTaskCompleted` does once it has decided: `end` the process with a status, or
    /// `park` a later caller until the process has ended.
    struct Ending: Sendable {
        var end: @Sendable (Int32) -> Never
        var park: @Sendable () -> Never

        static let process = Ending(end: { exit($0) }, park: { while true { sleep(3_600) } })
    }

    /// Called once, on a queue of its own, when the agent expires the run (SIGTERM), while the
    /// launch handler may still be working: stop it, save what you can, and call
    /// `setTaskCompleted(success:)` within the job's `GracePeriod=`. Set to nil once called, as
    /// on iOS. Without one, an expiry ends the task as failed.
    open var expirationHandler: (() -> Void)? {
        get { lock.withLock { handler } }
        set { lock.withLock { handler = newValue } }
    }

    /// The expiry, once (later SIGTERMs of the same expiry do nothing): the handler, taken so
    /// that it runs once, or the end as failed.
    func expire() {
        let (first, expiring) = lock.withLock {
            defer {
                expired = true
                handler = nil
            }
            return (!expired, handler)
        }
        guard first else { return }
        if let expiring { expiring() } else { setTaskCompleted(success: false) }
    }

    /// `setTaskCompleted` was called.
    var isCompleted: Bool { lock.withLock { completed } }

    /// Flushes what the task reported and ends the process: exit 0 for success, 1 otherwise. The
    /// first call decides, as on iOS: a later one (an expiration handler racing the work's end)
    /// waits for the process to end instead of calling exit a second time, whose outcome POSIX
    /// leaves undefined.
    open func setTaskCompleted(success: Bool) {
        let first = lock.withLock {
            defer { completed = true }
            return !completed
        }
        guard first else { ending.park() }
        output.finish()
        ending.end(success ? 0 : 1)
    }

    open override var description: String { "<\(type(of: self)): \(identifier)>" }
}

/// A refresh run (`Kind=refresh`).
open class BGAppRefreshTask: BGTask, @unchecked Sendable {}

/// A processing run (`Kind=processing`).
open class BGProcessingTask: BGTask, @unchecked Sendable {}

/// A continued run (`Kind=continued`): its title, subtitle and progress are shown by
/// `agentctl status`/`watch` and the desktop notification; progress is mandatory. As on iOS it
/// is `ProgressReporting`: code that observes any reporter takes the task.
open class BGContinuedProcessingTask: BGTask, ProgressReporting, @unchecked Sendable {
    /// Read and written under a lock: workers on many threads update them at once, as iOS's
    /// atomic properties allow.
    private let texts = NSLock()
    private var currentTitle: String
    private var currentSubtitle: String
    public var title: String { texts.withLock { currentTitle } }
    public var subtitle: String { texts.withLock { currentSubtitle } }
    /// Set `totalUnitCount` and `completedUnitCount`, or hang child progresses under it: they
    /// become `PROGRESS=` lines.
    public let progress: Progress

    init(identifier: String, title: String, subtitle: String, output: TaskOutput) {
        currentTitle = title
        currentSubtitle = subtitle
        progress = Progress(totalUnitCount: 0)
        super.init(identifier: identifier, output: output)
        output.follow(progress)
    }

    /// `TITLE=` and `SUBTITLE=` lines.
    open func updateTitle(_ title: String, subtitle: String) {
        texts.withLock {
            currentTitle = title
            currentSubtitle = subtitle
        }
        output.title(title, subtitle: subtitle)
    }
}
