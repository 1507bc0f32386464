// SPDX-License-Identifier: Apache-2.0
import CShim
import Glibc

/// A `CLOCK_REALTIME_ALARM` timerfd (`WakeSystem=`): armed for a wall-clock instant, it wakes a
/// suspended machine then (through the RTC) and becomes readable. Needs CAP_WAKE_ALARM (root has
/// it) and a kernel with alarm timers; where either is missing, opening it fails with what to do.
public final class WakeAlarm {
    private let descriptor: WatchedDescriptor

    static func reason(_ code: Int32) -> String {
        switch code {
        case EPERM:
            return "timerfd_create(CLOCK_REALTIME_ALARM): not permitted: the agent lacks CAP_WAKE_ALARM "
                + "(root's agent has it; add it to the service's AmbientCapabilities= for another user)"
        case EINVAL, ENOTSUP:
            return "timerfd_create(CLOCK_REALTIME_ALARM): this kernel has no alarm timers "
                + "(no real-time clock that can wake the machine)"
        default:
            return "timerfd_create(CLOCK_REALTIME_ALARM): \(SystemError.text(code))"
        }
    }

    /// Opens the alarm timer and watches it on `loop`; `fired` runs on the loop thread when it
    /// expires (the machine is awake again, or never slept). Throws with `reason` text.
    public init(loop: EventLoop, fired: @escaping () -> Void) throws {
        let fd = cshim_alarm_timerfd_create()
        guard fd >= 0 else { throw WakeAlarmRefused(description: Self.reason(errno)) }
        descriptor = try WatchedDescriptor(loop: loop, fd: fd) { fd in
            guard cshim_timerfd_drain(fd) > 0 else { return }
            fired()
        }
    }

    /// Arms it for `realtimeNanoseconds` since the epoch (close it to disarm: a zero setting
    /// does not disarm an alarm timer on every kernel).
    public func arm(at realtimeNanoseconds: Int64) throws {
        let value = UInt64(max(1, realtimeNanoseconds))
        guard cshim_alarm_timerfd_set(descriptor.fd, value) == 0 else {
            throw SystemError(call: "timerfd_settime(CLOCK_REALTIME_ALARM)", errno: errno)
        }
    }

    /// The instant the kernel has it armed for (nanoseconds since the epoch, read back with
    /// timerfd_gettime), nil when disarmed.
    public var armedAt: Int64? {
        let value = cshim_alarm_timerfd_armed_at(descriptor.fd)
        return value > 0 ? value : nil
    }

    public func close() { descriptor.close() }
}

/// Why the wake-up alarm could not be opened, said so that a person can act on it.
public struct WakeAlarmRefused: Error, CustomStringConvertible {
    public let description: String
}
