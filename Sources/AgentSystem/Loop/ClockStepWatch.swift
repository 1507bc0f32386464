// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim

/// Notices steps of the wall clock (NTP, `date -s`, `timedatectl set-time`) on the event loop.
///
/// A CLOCK_REALTIME timerfd armed with `TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET` for a time that
/// never comes becomes readable whenever the kernel's realtime offset is set (`clock_was_set`), and
/// its read fails with ECANCELED; it is then re-armed. The kernel says *that* the clock was set, not
/// by how much: the size comes from CLOCK_REALTIME − CLOCK_BOOTTIME, which only a step (or slow NTP
/// slewing) changes — a suspend moves both clocks alike, so a resume (which also cancels the timer)
/// reports a step of about zero. Setting the clock to the time it already shows still reports one.
public final class ClockStepWatch {
    /// One noticed step.
    public struct Step: Sendable, Hashable {
        /// How far the wall clock moved beyond the time that passed: positive forward, negative
        /// back; about zero for a resume or a clock set to the time it showed.
        public let size: Duration
        /// The loop's clock right after the step (re-read: handlers after this one see it too).
        public let clock: ClockReading
    }

    private let loop: EventLoop
    private var descriptor: WatchedDescriptor?
    /// CLOCK_REALTIME − CLOCK_BOOTTIME when the timer was last armed.
    private var reference: Duration

    /// Opens and arms the timerfd and watches it on `loop`; `handler` runs on the loop thread once
    /// per noticed step (steps between two loop iterations arrive as one).
    public init(loop: EventLoop, handler: @escaping (Step) -> Void) throws {
        let fd = cshim_realtime_timerfd_create()
        guard fd >= 0 else { throw SystemError(call: "timerfd_create(CLOCK_REALTIME)", errno: errno) }
        do {
            try Self.arm(fd)
        } catch {
            Glibc.close(fd)
            throw error
        }
        self.loop = loop
        // Read after arming, so no step goes unseen: one between arming and this reading still
        // wakes the watch (and is reported as about zero, having moved the reference too).
        reference = ClockReading.read().wallOffset
        // Urgent: the step is handled before this iteration's due timers, so no timer acts on
        // the new wall time before the handler had a chance to move what depends on it.
        descriptor = try WatchedDescriptor(loop: loop, fd: fd, urgent: true) { [weak self] fd in
            self?.stepped(fd, handler)
        }
    }

    /// Stops watching and closes the timerfd.
    public func close() {
        descriptor?.close()
    }

    private func stepped(_ fd: Int32, _ handler: (Step) -> Void) {
        switch cshim_realtime_timerfd_consume(fd) {
        case 0: return  // spurious wakeup
        case 1: break
        default:
            // Only EBADF/EINVAL remain: a broken descriptor, not a clock event.
            fatalError("timerfd read: \(SystemError.text(errno))")
        }
        // Re-arm before reading the clocks: a step after the re-arm cancels the timer again and is
        // reported next time; one before it is included in this reading.
        do {
            try Self.arm(fd)
        } catch {
            fatalError("\(error)")
        }
        loop.refreshClock()
        let clock = loop.clock
        let size = clock.wallOffset - reference
        reference = clock.wallOffset
        handler(Step(size: size, clock: clock))
    }

    private static func arm(_ fd: Int32) throws {
        guard cshim_realtime_timerfd_arm_cancel_on_set(fd) == 0 else {
            throw SystemError(call: "timerfd_settime(TFD_TIMER_CANCEL_ON_SET)", errno: errno)
        }
    }
}
