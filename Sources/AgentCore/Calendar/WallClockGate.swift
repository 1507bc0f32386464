// SPDX-License-Identifier: Apache-2.0
/// What a job's wall-clock gates need from the scheduler: the time now, the local-time rules
/// and the machine id its `RandomizedDelay=` offset derives from.
struct WallClockGate {
    var now: SchedulerTime
    var rule: any UTCOffsetRule
    var machineID: String

    /// The scheduled launch of a job with `Schedule=` or `RandomizedDelay=`: due at the first
    /// slot after its last run start (or after it was registered, or after the slots skipped
    /// with `CatchUp=no`) and, with `Interval=` too, not before last start + interval — both
    /// must hold; then the job's stable offset is added. nil when the schedule never matches
    /// again. Without `Schedule=`, a new job is due at once (DESIGN §4): the offset applies from
    /// its first run on.
    func scheduled(_ job: JobSchedule, lastRunStart: SchedulerTime?, intervalFactor: Int) -> LaunchCandidate? {
        let definition = job.definition
        let offset = definition.schedule != nil || lastRunStart != nil
            ? StableDelay.offset(span: definition.randomizedDelay, machineID: machineID, identifier: definition.identifier)
            : .zero
        var due: SchedulerTime?
        if let interval = definition.interval {
            due = lastRunStart.map { $0 + interval * intervalFactor } ?? job.firstSeen
        }
        var slotBinds = false
        if let schedule = definition.schedule {
            var after = lastRunStart ?? job.firstSeen
            if let skipped = job.skippedSlotsUntil, skipped > after { after = skipped }
            // A slot counts with its offset: a run that started late (held by a window, a
            // condition) takes its own slot, not the next one, whose offset time is still ahead.
            guard let slot = schedule.nextMatch(after: after - offset, rule: rule) else { return nil }
            slotBinds = due.map { slot >= $0 } ?? true
            due = max(due ?? slot, slot)
        }
        guard let due else { return nil }
        let begin = due + offset
        let gate: WaitReason = slotBinds ? .schedule(next: begin)
            : .interval(earliest: begin, factor: lastRunStart == nil ? 1 : intervalFactor)
        return LaunchCandidate(eligibleAt: begin, dueSince: begin, reason: .scheduled, timeGate: gate)
    }

    /// `candidate` held until one of `windows` is open, from now on: a job that became due
    /// inside a window but waited (for power, say) past its end waits for the next opening.
    func inWindow(_ windows: [TimeWindow], _ candidate: LaunchCandidate) -> LaunchCandidate {
        guard !windows.isEmpty else { return candidate }
        let probe = max(candidate.eligibleAt, now)
        let opens = TimeWindows.nextOpen(windows, atOrAfter: probe, rule: rule)
        guard opens > probe else { return candidate }
        var held = candidate
        held.eligibleAt = opens
        held.timeGate = .window(opens: opens)
        return held
    }
}
