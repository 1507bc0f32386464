// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem

/// Time that follows the machine (DESIGN §6, §10): tells the scheduler of wall-clock steps, of
/// local-calendar changes (time zone, daylight saving) and of suspends, so budgets, intervals
/// and catch-up follow them. It reads only the loop's clock of the current iteration.
final class LocalTimeFollower {
    /// Below this a "step" is the noise of reading two clocks (a resume, NTP slewing, the clock
    /// set to the time it showed): no decision depends on it, so the core's anchors stay.
    static let smallestStep: Duration = .seconds(1)
    /// A suspend shorter than this is not downtime worth a catch-up.
    static let shortestSuspend: Duration = .seconds(5)

    private let loop: any EventLooping
    /// The real loop, whose kernel watches (timerfd cancel-on-set, inotify) `start` sets up;
    /// nil in virtual time, where a script steps the clock itself.
    private let kernelLoop: EventLoop?
    private let log: Logger
    private let localTimePath: String
    /// The local calendar last handed to the scheduler.
    private(set) var calendar: LocalCalendar
    /// Time spent suspended so far (CLOCK_BOOTTIME − CLOCK_MONOTONIC): growth means a suspend.
    private var suspended: Duration
    private var clockSteps: ClockStepWatch?
    private var smallSteps = SmallClockStepLog()
    private var zoneWatch: LocalTimeWatch?

    /// Hands the scheduler an event (`.calendarChanged`, `.clockStepped`, `.resumedAfterDowntime`).
    var send: (SchedulerEvent) -> Void = { _ in }
    /// The wall clock moved under the deadline timer: re-arm it.
    var clockMoved: () -> Void = {}

    init(loop: any EventLooping, kernelLoop: EventLoop?, log: Logger, localTimePath: String = "/etc/localtime") {
        self.loop = loop
        self.kernelLoop = kernelLoop
        self.log = log
        self.localTimePath = localTimePath
        calendar = LocalZone.calendar(at: Self.seconds(loop.clock))
        suspended = loop.clock.suspendedTotal
    }

    private var now: SchedulerTime { SchedulerTime(seconds: loop.clock.realtimeSeconds) }

    /// Starts watching for clock steps and for the zone file being replaced. Either failing
    /// leaves the agent running, with a warning that says what is lost and what still works.
    func start() {
        guard let loop = kernelLoop else { return }
        do {
            clockSteps = try ClockStepWatch(loop: loop) { [unowned self] step in self.clockStepped(step) }
        } catch {
            log.warning("wall-clock steps will not be noticed (\(error)); after setting the clock, restart agentd")
        }
        do {
            zoneWatch = try LocalTimeWatch(loop: loop, path: localTimePath) { [unowned self] in
                self.followZone(because: "\(self.localTimePath) changed")
            }
        } catch {
            log.warning("time-zone changes will not be noticed at once (\(error)); they are picked up at the next scheduler tick")
        }
    }

    /// Before each event the scheduler handles: a passed daylight-saving transition gets a fresh
    /// calendar, and each tick (budget refills among them) compares the zone's offset with the
    /// calendar's, which also catches zone rules changed under an unchanged `/etc/localtime`.
    ///
    /// Before any event, a suspend is noticed: the resume may reach the agent first as logind's
    /// `PrepareForSleep(false)` or a battery's uevent rather than a tick or the clock's set, and
    /// the work that fell due while the machine slept must be planned as a catch-up (spread, most
    /// overdue first), not started all at once by that event.
    func beforeEvent(_ event: SchedulerEvent) {
        switch event {
        case .calendarChanged, .clockStepped, .resumedAfterDowntime:
            return
        case .tick:
            checkForSuspend()
            let offsetNow = LocalZone.currentOffset(at: Self.seconds(loop.clock))
            if calendar.isOutdated(at: now) || offsetNow != calendar.utcOffset(at: now) {
                followZone(because: nil)
            }
        default:
            checkForSuspend()
            if calendar.isOutdated(at: now) { followZone(because: nil) }
        }
    }

    /// A suspend shows as CLOCK_BOOTTIME running ahead of CLOCK_MONOTONIC: catch-up rules apply.
    func checkForSuspend() {
        let total = loop.clock.suspendedTotal
        defer { suspended = total }
        guard total - suspended > Self.shortestSuspend else { return }
        log.notice("resumed after \(TimeSpan.format(total - suspended)) suspended: overdue jobs catch up")
        send(.resumedAfterDowntime)
    }

    /// Reads the zone rules again and hands the scheduler the new calendar when it differs.
    func followZone(because why: String?) {
        let fresh = LocalZone.calendar(at: Self.seconds(loop.clock))
        guard fresh != calendar else { return }
        let before = calendar.utcOffset(at: now), after = fresh.utcOffset(at: now)
        if before != after {
            log.notice("local time is now UTC\(Self.offsetText(after)) (was UTC\(Self.offsetText(before)))\(why.map { ": \($0)" } ?? ""); the budget refills at the new local midnight")
        }
        calendar = fresh
        send(.calendarChanged(fresh))
    }

    /// The wall clock was set: anchors move with it, the zone may now be in another offset, the
    /// deadline timer maps to a new monotonic delay, and a resume (which also sets it) may show.
    private func clockStepped(_ step: ClockStepWatch.Step) {
        checkForSuspend()
        let size = step.size
        if size >= Self.smallestStep || size <= .zero - Self.smallestStep {
            log.notice("wall clock stepped \(size < .zero ? "back" : "forward") by \(TimeSpan.format(size < .zero ? .zero - size : size))")
            send(.clockStepped(by: size))
        } else if let line = smallSteps.line(for: size, at: loop.clock.monotonic) {
            log.info(line)
        }
        followZone(because: nil)
        clockMoved()
    }

    private static func seconds(_ clock: ClockReading) -> Int64 {
        clock.realtime / 1_000_000_000
    }

    /// `+01:00`, `-05:00`, `+05:45`.
    static func offsetText(_ seconds: Int) -> String {
        let magnitude = abs(seconds) / 60
        let hours = magnitude / 60, minutes = magnitude % 60
        return (seconds < 0 ? "-" : "+") + (hours < 10 ? "0" : "") + "\(hours):" + (minutes < 10 ? "0" : "") + "\(minutes)"
    }
}
