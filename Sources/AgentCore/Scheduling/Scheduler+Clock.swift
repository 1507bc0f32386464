// SPDX-License-Identifier: Apache-2.0
/// Time that follows the machine (DESIGN §10): wall-clock steps and local-calendar changes.
///
/// Two kinds of time rule live in the scheduler. Elapsed-time rules — `Interval=` from the last
/// start, `Retry=` backoff, trigger spacing, catch-up slots, `MaxPause=`, pressure steps — mean
/// "this long after that happened", so when the wall clock is stepped their anchors move with it:
/// a step forward does not make work due early (no double run), a step back does not push it
/// later (no stuck wait). Calendar rules — the daily budget's local midnight — follow the new
/// wall clock and the local calendar, whichever way it moved.
extension Scheduler {
    /// The wall clock was stepped by `size` (positive: forward) beyond the time that passed;
    /// `now` is already on the new clock.
    mutating func clockStepped(by size: Duration, now: SchedulerTime) {
        guard size != .zero else { return }
        lastRunStart.shiftAll(by: size)
        lastSuccess.shiftAll(by: size)
        lastTriggerLaunch.shiftAll(by: size)
        pendingRetries.shiftAll(by: size)
        for id in jobs.keys {
            jobs[id]?.shift(by: size)
        }
        for run in frozen.keys {
            frozen[run]?.since += size
            frozen[run]?.expiresAt += size
        }
        nextShedAt = nextShedAt.map { $0 + size }
        holdingSince = holdingSince.map { min($0 + size, now) }
        // Every heap is keyed by these times: put each job back where its new times say.
        for id in jobs.keys.sorted() {
            reschedule(id, now: now)
        }
        budgets.recalibrate(now: now, calendar: calendar)
        dirty = true
        log("wall clock stepped \(size < .zero ? "back" : "forward") by \(TimeSpan.format(size < .zero ? .zero - size : size)): intervals, retries and spacing keep their elapsed time; the budget follows the local date")
    }

    /// The local calendar changed (daylight saving, a new time zone): the budget's day and
    /// refill follow it.
    mutating func calendarChanged(_ new: LocalCalendar, now: SchedulerTime) {
        guard new != calendar else { return }
        calendar = new
        budgets.recalibrate(now: now, calendar: new)
        dirty = true
    }
}

extension JobSchedule {
    /// Moves every wall-clock anchor of the job by a clock step.
    mutating func shift(by size: Duration) {
        firstSeen += size
        request.triggeredAt = request.triggeredAt.map { $0 + size }
        request.retryAt = request.retryAt.map { $0 + size }
        request.chainedAt = request.chainedAt.map { $0 + size }
        if var slot = catchUp {
            slot.at += size
            slot.dueSince += size
            catchUp = slot
        }
    }
}

extension TrackedMap where Value == SchedulerTime {
    /// Moves every time by a clock step (each one then counts as changed, to be persisted).
    mutating func shiftAll(by size: Duration) {
        for key in Array(keys) {
            self[key] = self[key].map { $0 + size }
        }
    }
}

extension SchedulerTime {
    static func += (lhs: inout SchedulerTime, rhs: Duration) { lhs = lhs + rhs }
}
