// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import AgentSystem

/// `WakeSystem=` (DESIGN §3): keeps one `CLOCK_REALTIME_ALARM` timer armed for the scheduler's
/// `wakeSlot`, so a suspended machine wakes for the night's job. The timer is opened at the
/// first slot; where the kernel refuses it (no CAP_WAKE_ALARM, no alarm timers) that is logged
/// once and said in `status`, and the jobs run at their slot only while the machine is awake.
/// Loop-thread only.
final class WakeAlarmFollower {
    private var alarm: WakeAlarm?
    private var refusal: String?
    private var slot: WakeSlot?
    private var loop: EventLoop?
    private var log: (String) -> Void = { _ in }
    /// The alarm went off: the machine is awake for its slot (the scheduler should tick).
    var onFired: () -> Void = {}

    func start(loop: EventLoop, log: @escaping (String) -> Void) {
        self.loop = loop
        self.log = log
    }

    /// After every scheduler event: the alarm armed for `wanted`, or disarmed.
    func follow(_ wanted: WakeSlot?) {
        guard wanted != slot, let loop else { return }
        slot = wanted
        if alarm == nil, wanted != nil, refusal == nil {
            // Opened at the first slot, so a machine without WakeSystem= jobs never asks.
            do {
                alarm = try WakeAlarm(loop: loop) { [unowned self] in self.onFired() }
            } catch {
                refusal = "\(error)"
                log("wake: WakeSystem= cannot wake this machine: \(error); such jobs run at their slot only while it is awake")
            }
        }
        guard let alarm else { return }
        guard let wanted else {
            // Closed rather than set to zero: some kernels (gVisor) keep an alarm timer armed
            // through a zero setting. Opened again for the next slot.
            alarm.close()
            self.alarm = nil
            log("wake: alarm disarmed: no WakeSystem= slot to come")
            return
        }
        do {
            try alarm.arm(at: Int64((wanted.at.seconds * 1_000_000_000).rounded(.down)))
            log("wake: alarm armed for \(LocalClockText.text(wanted.at.seconds, now: loop.clock.realtimeSeconds)) (\(wanted.identifier))")
        } catch {
            log("wake: cannot arm the alarm: \(error)")
        }
    }

    /// `armed for 2026-12-03 03:00 (local.backup)`, `refused: …`, nil without a WakeSystem= slot.
    var statusText: String? {
        if let refusal, slot != nil { return "refused: \(refusal)" }
        guard let slot, let armed = alarm?.armedAt, let loop else { return nil }
        let seconds = Double(armed) / 1_000_000_000
        return "armed for \(LocalClockText.text(seconds, now: loop.clock.realtimeSeconds)) (\(slot.identifier))"
    }

    /// The instant the kernel has the alarm armed for (timerfd_gettime), seconds since the epoch.
    var armedAt: Double? { alarm?.armedAt.map { Double($0) / 1_000_000_000 } }
}
