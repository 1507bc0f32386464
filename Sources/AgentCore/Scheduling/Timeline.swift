// SPDX-License-Identifier: Apache-2.0
/// One line of `agentctl explain ID`: what the scheduler decided about an identifier, when.
public struct TimelineEntry: Sendable, Hashable, CustomStringConvertible {
    public var time: SchedulerTime
    /// The identifier it concerns (a submission's dynamic identifier for continued work).
    public var identifier: Identifier
    public var event: TimelineEvent

    public init(time: SchedulerTime, identifier: Identifier, event: TimelineEvent) {
        self.time = time
        self.identifier = identifier
        self.event = event
    }

    /// The event without the entry's time (the shell formats times).
    public var description: String { event.description }
}

/// What happened. Times inside events are left for the shell to format.
public enum TimelineEvent: Sendable, Hashable, CustomStringConvertible {
    /// Registered with the scheduler (new or changed definition).
    case registered
    /// Gone from the registered jobs; its pending requests were dropped.
    case removed
    /// It became due (`since`: the time it was due from) and the scheduler looked at it.
    case becameDue(RunReason, since: SchedulerTime)
    /// Due but held back, and why (written once per due cycle and reason).
    case deferred(WaitReason)
    case launched(RunReason)
    /// The shell reported the run started (runs the shell started itself included).
    case started(RunID, RunReason)
    case ended(RunID, StopReason)
    /// A trigger created the pending request.
    case triggered
    /// A trigger merged into the request already pending.
    case mergedTrigger
    /// `agentctl request`: the pending request, with its earliest begin and requirements;
    /// `replaced`: it replaced the one pending before.
    case requested(RunRequest, replaced: Bool)
    /// A continued submission was queued (position in the agent-wide FIFO) or launched (0).
    case submitted(requestID: Int64, position: Int)
    case refused(requestID: Int64, SubmitRefusal)
    /// `Retry=` after this many consecutive failures: a retry is pending until `at`.
    case retryScheduled(at: SchedulerTime, failures: Int)
    /// `OnSuccess=` (or, `afterFailure`, `OnFailure=`) of `by` asked for a run.
    case chainRequested(by: Identifier, afterFailure: Bool)
    /// Overdue after downtime: one catch-up run at `at`, for `reason` (`catch-up` for a missed
    /// interval or slot; a request that fell due meanwhile keeps its own).
    case catchUpScheduled(at: SchedulerTime, for: RunReason)
    /// At start-up: pending work the state database kept from before the restart.
    case kept(KeptWork)
    /// `agentctl cancel-request` (or a removal) dropped pending requests.
    case pendingCancelled
    case enabled
    case disabled
    /// A condition the run needed was lost: it is being expired.
    case expiring(RunID, ConditionHold)
    /// `OnConditionLost=pause`: frozen while the condition is lost.
    case frozen(RunID, ConditionHold)
    /// Its conditions came back: thawed.
    case thawed(RunID)

    public var description: String {
        switch self {
        case .registered: "registered"
        case .removed: "removed"
        case .becameDue(let reason, _): "became due (\(reason.rawValue))"
        case .deferred(.budget(let budget)): "deferred: \(WaitReason.budget(budget)) (\(budget.used)/\(budget.limit))"
        case .deferred(let reason): "deferred: \(reason)"
        case .launched(let reason): "launched (\(reason.rawValue))"
        case .started(let run, let reason): "run \(run) started (\(reason.rawValue))"
        case .ended(let run, let stop): "run \(run) ended: \(stop)"
        case .triggered: "triggered"
        case .mergedTrigger: "triggered again: merged into the pending request"
        case .requested(let request, let replaced):
            (replaced ? "requested again: replaces the pending request" : "requested")
                + (request.requirements.isEmpty ? "" : "; requires \(request.requirements.description)")
        case .submitted(let request, let position):
            position == 0 ? "submitted (request \(request)): starting now"
                : "submitted (request \(request)): queued at position \(position)"
        case .refused(let request, let why): "submission (request \(request)) refused: \(why)"
        case .retryScheduled(_, let failures):
            "retry scheduled after \(failures) consecutive failure\(failures == 1 ? "" : "s")"
        case .chainRequested(let by, let afterFailure):
            "chained: requested by \(by)'s \(afterFailure ? "failure" : "success")"
        case .catchUpScheduled(_, .catchUp): "overdue after downtime: one catch-up run scheduled"
        case .catchUpScheduled(_, let reason):
            "overdue after downtime (\(reason.rawValue)): its run is spread with the catch-up runs"
        case .kept(.request(let parts)):
            "pending from before the restart: " + parts.map(\.rawValue).joined(separator: ", ")
        case .kept(.submission(let request)): "queued submission (request \(request)) kept from before the restart"
        case .pendingCancelled: "pending requests cancelled"
        case .enabled: "enabled"
        case .disabled: "disabled"
        case .expiring(let run, let hold): "run \(run) expired: \(hold)"
        case .frozen(let run, let hold): "run \(run) paused: \(hold)"
        case .thawed(let run): "run \(run) resumed: conditions are back"
        }
    }
}

/// What a restart kept (``TimelineEvent/kept(_:)``).
public enum KeptWork: Sendable, Hashable {
    /// A refresh or processing job's pending request, by what its parts ask for (`requested`,
    /// `triggered`, `retry`, `chained`).
    case request([RunReason])
    /// A queued continued submission.
    case submission(requestID: Int64)
}

/// The recent timeline of every identifier, each bounded to ``capacity`` entries (oldest
/// dropped first). Keys for identifiers that are not registered jobs (dynamic submission
/// identifiers, removed jobs) are bounded too: beyond ``transientKeyLimit`` the oldest go.
struct Timeline: Sendable {
    static let capacity = 100
    static let transientKeyLimit = 1024

    private struct Ring: Sendable {
        var entries: [TimelineEntry] = []
        var start = 0

        mutating func append(_ entry: TimelineEntry) {
            if entries.count < Timeline.capacity {
                entries.append(entry)
            } else {
                entries[start] = entry
                start = (start + 1) % Timeline.capacity
            }
        }

        var ordered: [TimelineEntry] {
            Array(entries[start...] + entries[..<start])
        }
    }

    private var rings: [Identifier: Ring] = [:]
    /// A registered job whose timeline is its registration alone keeps only that time here (it
    /// then has no ring), and gets a ring at its next line: most jobs of a large configuration are
    /// not due when they load, and a ring of one entry cost ~100 bytes a job (measured with 10,000
    /// jobs: 11.6 MB of heap against 10.6).
    private(set) var registeredOnly: [Identifier: SchedulerTime] = [:]
    /// Transient keys in first-use order, for eviction.
    private var transient: [Identifier] = []
    private var transientHead = 0
    private var transientSet: Set<Identifier> = []

    /// Appends `entry` under `key`. `persistentKey` says whether `key` is a registered job
    /// (kept) or transient (bounded in number).
    mutating func record(_ key: Identifier, _ entry: TimelineEntry, persistentKey: Bool) {
        if entry.event == .registered, persistentKey, entry.identifier == key,
           registeredOnly[key] == nil, rings[key] == nil {
            registeredOnly[key] = entry.time
            return
        }
        // Any other line costs one lookup here: a key kept here has no ring, so its registration
        // starts one.
        if !registeredOnly.isEmpty, let time = registeredOnly.removeValue(forKey: key) {
            rings[key] = Ring(entries: [Self.registration(key, at: time)])
            // A crowd of due jobs emptied it: give back its storage (~40 bytes a job it held).
            if registeredOnly.isEmpty { registeredOnly = [:] }
        }
        if persistentKey {
            // Mostly empty: a crowd of due jobs then costs no hashing here.
            if !transientSet.isEmpty { transientSet.remove(key) }
        } else if rings[key] == nil {
            transient.append(key)
            transientSet.insert(key)
            evictTransientKeys()
        }
        rings[key, default: Ring()].append(entry)
    }

    private mutating func evictTransientKeys() {
        while transientSet.count > Self.transientKeyLimit, transientHead < transient.count {
            let candidate = transient[transientHead]
            transientHead += 1
            // Keys that became registered jobs since are no longer transient: skip them.
            if transientSet.remove(candidate) != nil { rings[candidate] = nil }
        }
        if transientHead > Self.transientKeyLimit {
            transient.removeFirst(transientHead)
            transientHead = 0
        }
    }

    /// Oldest first.
    func entries(_ key: Identifier) -> [TimelineEntry]? {
        if let ring = rings[key] { return ring.ordered }
        return registeredOnly[key].map { [Self.registration(key, at: $0)] }
    }

    private static func registration(_ key: Identifier, at time: SchedulerTime) -> TimelineEntry {
        TimelineEntry(time: time, identifier: key, event: .registered)
    }
}
