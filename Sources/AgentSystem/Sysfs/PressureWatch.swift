// SPDX-License-Identifier: Apache-2.0
import AgentCore
import CShim
import Glibc

/// Watches one PSI file (`PROC/pressure/RESOURCE`) on an `EventLoop` and reports pressure on and
/// off through `onChange`.
///
/// With a PSI trigger (`source == .trigger`) nothing runs while the resource is quiet: the loop
/// sleeps until the kernel signals EPOLLPRI on the trigger descriptor. Pressure turns on only
/// once it lasts: a second trigger within `timings.confirm` of the first (the kernel fires once a
/// window while the stall goes on), or `some avg10` at or above `thresholds.onAvg10` when that
/// time is up. A lone trigger is a blip and changes nothing: one stalled window, or — seen on a
/// VM — a trigger with next to no stall recorded, which used to shed a user's run. Since
/// triggers do not signal the end, the file is then re-read every `timings.recheck` until
/// `some avg10` is below `thresholds.offAvg10` with no trigger fired since the previous re-read,
/// which turns pressure off and stops the timer.
///
/// Without a trigger (`.sampled`) the file is read when `refresh()` is called, every
/// `timings.quietSample` while `wantsQuietSamples` is true, and every `timings.recheck` while
/// pressure is on. Pressure turns on at `some avg10` ≥ `onAvg10` and off below `offAvg10`.
///
/// Lives on the loop's thread, like the loop itself; callbacks run there.
public final class PressureWatch {
    public let resource: PressureResource
    public let path: String
    public let thresholds: PressureThresholds
    public let timings: PressureTimings

    /// How pressure is learnt; fixed by `start()`, and demoted from `.trigger` to `.sampled` if
    /// the kernel invalidates the trigger.
    public private(set) var source: PressureSource = .unavailable
    /// One line for `agentctl status`: why the source is what it is.
    public private(set) var sourceDetail: String = "not started"
    /// Whether pressure is currently on.
    public private(set) var isOn = false
    /// The last reading of the file, if any.
    public private(set) var lastReading: PressureReading?
    /// Called on the loop thread with the new value whenever `isOn` changes.
    public var onChange: ((Bool) -> Void)?

    /// Sampled source: whether to read the file every `timings.quietSample` while quiet. The
    /// daemon sets it while work runs or is due (DESIGN §6: never polled while nothing is due).
    /// Ignored with a trigger, which needs no samples.
    public var wantsQuietSamples = false {
        didSet { if wantsQuietSamples != oldValue { scheduleNext() } }
    }

    private let loop: any EventLooping
    private var triggerFD: Int32 = -1
    /// A trigger fired while pressure was off, and `timings.confirm` has not passed yet.
    private var suspected = false
    private var watchToken: WatchToken?
    private var timer: TimerToken?
    private var triggeredSinceRecheck = false
    private var started = false

    public init(resource: PressureResource, roots: KernelRoots = .system, loop: any EventLooping,
                thresholds: PressureThresholds? = nil, timings: PressureTimings = .standard)
    {
        self.resource = resource
        self.path = roots.pressureFile(resource.rawValue)
        self.loop = loop
        self.thresholds = thresholds ?? .standard(for: resource)
        self.timings = timings
    }

    deinit {
        if let timer { loop.cancel(timer) }
        if let watchToken { loop.unwatch(watchToken) }
        if triggerFD >= 0 { close(triggerFD) }
    }

    /// Sets up the trigger or the fallback and takes a first reading (which may call
    /// `onChange(true)`). Calling it again does nothing.
    public func start() {
        guard !started else { return }
        started = true
        switch installTrigger() {
        case .installed:
            source = .trigger
            sourceDetail = "PSI trigger \"\(thresholds.triggerText)\" on \(path)"
        case .refused(let why):
            if SmallFile.read(path).flatMap(PressureReading.init(text:)) != nil {
                source = .sampled
                sourceDetail = "\(why): \(path) read every "
                    + "\(Self.seconds(timings.quietSample)) while work is due"
            } else {
                source = .unavailable
                sourceDetail = why
            }
        }
        if source != .unavailable { refresh() }
    }

    /// Reads the file now and updates `isOn` (for a trigger source this can only turn pressure
    /// off, or confirm it; the trigger is what turns it on). Does nothing when unavailable.
    public func refresh() {
        guard started, source != .unavailable else { return }
        evaluate(reading: read())
    }

    /// Stops watching: closes the trigger and cancels the timer; `start()` may set it up again.
    /// `isOn` keeps its last value.
    public func stop() {
        started = false
        suspected = false
        if let timer { loop.cancel(timer) }
        timer = nil
        if let watchToken { loop.unwatch(watchToken) }
        watchToken = nil
        if triggerFD >= 0 { close(triggerFD) }
        triggerFD = -1
    }

    /// Whether a timer is pending (tests check that a quiet trigger source keeps none).
    public var hasPendingTimer: Bool { timer.map(loop.isScheduled) ?? false }

    // MARK: Trigger

    private enum TriggerSetup {
        case installed
        case refused(String)
    }

    private func installTrigger() -> TriggerSetup {
        let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            let code = errno
            return .refused(code == ENOENT || code == ENOTDIR
                ? "no \(path)" : "cannot open \(path) for a trigger: \(Self.errorText(code))")
        }
        // A fake tree's regular file would simply be overwritten by the trigger text.
        guard cshim_fd_is_procfs(fd) == 1 else {
            close(fd)
            return .refused("\(path) is not on procfs")
        }
        // The kernel replaces the last byte written with a NUL, so the NUL must be written too.
        var bytes = Array(thresholds.triggerText.utf8CString)
        let written = bytes.withUnsafeMutableBytes { raw -> Int in
            guard let base = raw.baseAddress else { return -1 }
            return Glibc.write(fd, base, raw.count)
        }
        guard written == bytes.count else {
            let code = written < 0 ? errno : EIO
            close(fd)
            return .refused("the kernel refused a trigger: \(Self.errorText(code))")
        }
        do {
            watchToken = try loop.watch(fd: fd, events: [.priority], urgent: false, everySlice: false) { [weak self] events in
                self?.triggerReady(events)
            }
        } catch {
            close(fd)
            return .refused("cannot watch the trigger: \(error)")
        }
        triggerFD = fd
        return .installed
    }

    private func triggerReady(_ events: IOEvents) {
        if events.contains(.error) {
            // The trigger is gone (its cgroup was removed, or the kernel dropped it): fall back.
            stop()
            source = .sampled
            sourceDetail = "the PSI trigger on \(path) failed"
            refresh()
            return
        }
        guard events.contains(.priority) else { return }
        lastReading = read() ?? lastReading
        if !isOn && !suspected {
            suspected = true
            scheduleNext()
            return
        }
        triggeredSinceRecheck = true
        if suspected {
            suspected = false
            set(on: true)
            scheduleNext()
            return
        }
        // Keep a pending recheck where it is: triggers repeat every window under sustained
        // pressure and must not push the recheck away for ever.
        if !hasPendingTimer { scheduleNext() }
    }

    // MARK: Evaluation

    private func read() -> PressureReading? {
        SmallFile.read(path).flatMap(PressureReading.init(text:))
    }

    private func evaluate(reading: PressureReading?) {
        // Read when the confirmation time is up (or earlier, on SIGHUP): unless the averages
        // show the pressure, the lone trigger was a blip.
        suspected = false
        defer { scheduleNext() }
        guard let reading else { return }  // unreadable for a moment: keep the state
        lastReading = reading
        let avg10 = reading.some.avg10
        if isOn {
            if avg10 < thresholds.offAvg10 && !triggeredSinceRecheck { set(on: false) }
        } else if avg10 >= thresholds.onAvg10 {
            set(on: true)
        }
        triggeredSinceRecheck = false
    }

    private func set(on: Bool) {
        guard on != isOn else { return }
        isOn = on
        onChange?(on)
    }

    /// Keeps exactly the timer the current state needs: a recheck while on, a quiet sample for a
    /// sampled source that wants them, none otherwise.
    private func scheduleNext() {
        let interval: Duration?
        if !started || source == .unavailable {
            interval = nil
        } else if isOn {
            interval = timings.recheck
        } else if suspected {
            interval = timings.confirm
        } else if source == .sampled && wantsQuietSamples {
            interval = timings.quietSample
        } else {
            interval = nil
        }
        if let timer { loop.cancel(timer) }
        timer = nil
        guard let interval else { return }
        timer = loop.schedule(after: interval) { [weak self] in
            guard let self else { return }
            self.timer = nil
            self.evaluate(reading: self.read())
        }
    }

    private static func errorText(_ code: Int32) -> String { SystemError.text(code) }

    private static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0 { return "\(seconds) s" }
        return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000) ms"
    }
}
