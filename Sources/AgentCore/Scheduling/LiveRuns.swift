// SPDX-License-Identifier: Apache-2.0
/// One run the scheduler counts as live: from its `.launch` (or the shell's `.runStarted` for
/// runs the shell started itself) until `.runEnded`.
struct CountedRun: Sendable, Hashable {
    /// The run's identifier (a submission's may carry a dynamic suffix).
    var identifier: Identifier
    /// The registered job it belongs to.
    var job: Identifier
    var reason: RunReason
    /// The last progress it reported (0…1), nil before any.
    var progress: Double? = nil
    /// Launched as a refresh/processing run (one at a time); false for a continued job's. A job
    /// whose kind changes keeps its live runs: after continued → refresh it may have several,
    /// none of them launched one at a time.
    var oneAtATime = false
    /// What the request it was launched for asked for on top of the job's keys: lost
    /// mid-run, it expires the run as the job's own `Requires…=` would.
    var requirements = RequestRequirements()
    /// Started with policy bypassed (`run`, `simulate launch`, `run-if-stale`): only what stops
    /// every run (the hard stops, the suspend) stops it, not the job's own needs.
    var bypassedPolicy = false
}

/// Live runs, for `MaxConcurrent=` (all kinds) and "one run at a time" per refresh/processing
/// identifier. A launch counts at once, before the shell reports it started, so a second event
/// in between cannot launch past the limits; the shell reports it under the run id the launch
/// carried, so no start is matched to a launch by guesswork.
struct LiveRuns: Sendable {
    /// Launched, not yet reported started, by the run id the scheduler gave the launch.
    private var unstarted: [RunID: CountedRun] = [:]
    private var started: [RunID: CountedRun] = [:]
    private var perJob: [Identifier: Int] = [:]
    private(set) var total = 0

    func count(job: Identifier) -> Int { perJob[job] ?? 0 }

    /// Live runs of `job` launched one at a time (for the invariants: O(runs)).
    func oneAtATimeCount(job: Identifier) -> Int {
        started.values.filter { $0.job == job && $0.oneAtATime }.count
            + unstarted.values.filter { $0.job == job && $0.oneAtATime }.count
    }

    /// Jobs with a live run.
    var runningJobs: Dictionary<Identifier, Int>.Keys { perJob.keys }

    /// Runs the shell reported started and not yet ended.
    var startedRuns: [RunID: CountedRun] { started }

    mutating func setProgress(_ run: RunID, _ fraction: Double) {
        started[run]?.progress = fraction
    }
    func isRunning(_ job: Identifier) -> Bool { (perJob[job] ?? 0) > 0 }

    /// A launch the scheduler decided, under the run id it gave it.
    mutating func launched(_ run: CountedRun, as id: RunID) {
        unstarted[id] = run
        add(run)
    }

    /// The shell started run `runID`. Returns false when it was not one the scheduler launched
    /// (it is counted from now on).
    mutating func started(_ identifier: Identifier, _ runID: RunID, job: Identifier,
                          reason: RunReason) -> Bool
    {
        if started[runID] != nil { return true }
        if var run = unstarted.removeValue(forKey: runID) {
            run.identifier = identifier
            started[runID] = run
            return true
        }
        let run = CountedRun(identifier: identifier, job: job, reason: reason)
        started[runID] = run
        add(run)
        return false
    }

    /// A run ended; returns what was counted for it, or nil for a run never counted.
    mutating func ended(_ runID: RunID) -> CountedRun? {
        guard let run = started.removeValue(forKey: runID) ?? unstarted.removeValue(forKey: runID) else {
            return nil
        }
        remove(run)
        return run
    }

    private mutating func add(_ run: CountedRun) {
        total += 1
        perJob[run.job, default: 0] += 1
    }

    private mutating func remove(_ run: CountedRun) {
        total = max(0, total - 1)
        let left = (perJob[run.job] ?? 1) - 1
        perJob[run.job] = left > 0 ? left : nil
    }
}
