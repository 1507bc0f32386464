// SPDX-License-Identifier: Apache-2.0
/// One identifier's persisted scheduling state: a row of its own in SQLite, so an event that
/// touches one job writes one small row, not the whole schedule.
public struct IdentifierSchedule: Sendable, Hashable, Codable {
    public var lastRunStart: SchedulerTime?
    public var lastSuccess: SchedulerTime?
    public var consecutiveFailures: Int?
    public var disabled: Bool
    public var pendingTrigger: Bool
    public var pendingRetry: SchedulerTime?
    public var pendingChained: Bool
    public var lastTriggerLaunch: SchedulerTime?
    /// A pending `agentctl request`.
    public var pendingRequest: RunRequest?

    public init(lastRunStart: SchedulerTime? = nil, lastSuccess: SchedulerTime? = nil,
                consecutiveFailures: Int? = nil, disabled: Bool = false, pendingTrigger: Bool = false,
                pendingRetry: SchedulerTime? = nil, pendingChained: Bool = false,
                lastTriggerLaunch: SchedulerTime? = nil, pendingRequest: RunRequest? = nil)
    {
        self.pendingRequest = pendingRequest
        self.lastRunStart = lastRunStart
        self.lastSuccess = lastSuccess
        self.consecutiveFailures = consecutiveFailures
        self.disabled = disabled
        self.pendingTrigger = pendingTrigger
        self.pendingRetry = pendingRetry
        self.pendingChained = pendingChained
        self.lastTriggerLaunch = lastTriggerLaunch
    }

    /// Nothing to keep: the row can be deleted.
    public var isEmpty: Bool { self == IdentifierSchedule() }

    private enum CodingKeys: String, CodingKey {
        case lastRunStart, lastSuccess, consecutiveFailures, disabled, pendingTrigger, pendingRetry,
             pendingChained, lastTriggerLaunch, pendingRequest
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        lastRunStart = try c.decodeIfPresent(SchedulerTime.self, forKey: .lastRunStart)
        lastSuccess = try c.decodeIfPresent(SchedulerTime.self, forKey: .lastSuccess)
        consecutiveFailures = try c.decodeIfPresent(Int.self, forKey: .consecutiveFailures)
        disabled = try c.decodeIfPresent(Bool.self, forKey: .disabled) ?? false
        pendingTrigger = try c.decodeIfPresent(Bool.self, forKey: .pendingTrigger) ?? false
        pendingRetry = try c.decodeIfPresent(SchedulerTime.self, forKey: .pendingRetry)
        pendingChained = try c.decodeIfPresent(Bool.self, forKey: .pendingChained) ?? false
        lastTriggerLaunch = try c.decodeIfPresent(SchedulerTime.self, forKey: .lastTriggerLaunch)
        // A row whose request cannot be read (a newer agent's) keeps the rest of the row.
        pendingRequest = try? c.decodeIfPresent(RunRequest.self, forKey: .pendingRequest)
    }
}

/// What one event changed in the persisted schedule (DESIGN §10), for `.persist`.
public struct ScheduleChanges: Sendable, Hashable {
    /// Changed identifiers and their whole new row; an empty row means "delete it".
    public var records: [Identifier: IdentifierSchedule]
    /// The agent-wide part (pause, budget, queued submissions) with every per-identifier map
    /// empty; written whenever anything changed.
    public var globals: PersistedSchedule

    public init(records: [Identifier: IdentifierSchedule], globals: PersistedSchedule) {
        self.records = records
        self.globals = globals
    }
}

extension PersistedSchedule {
    /// The row of `id` in this schedule.
    public func record(for id: Identifier) -> IdentifierSchedule {
        IdentifierSchedule(
            lastRunStart: lastRunStart[id], lastSuccess: lastSuccess[id],
            consecutiveFailures: consecutiveFailures[id], disabled: disabled.contains(id),
            pendingTrigger: pendingTriggers.contains(id), pendingRetry: pendingRetries[id],
            pendingChained: pendingChained.contains(id), lastTriggerLaunch: lastTriggerLaunch[id],
            pendingRequest: pendingRequests[id])
    }

    /// Every identifier that has a row.
    public var recordedIdentifiers: Set<Identifier> {
        var ids = Set(lastRunStart.keys).union(lastSuccess.keys).union(consecutiveFailures.keys)
        ids.formUnion(disabled)
        ids.formUnion(pendingTriggers)
        ids.formUnion(pendingRetries.keys)
        ids.formUnion(pendingChained)
        ids.formUnion(lastTriggerLaunch.keys)
        ids.formUnion(pendingRequests.keys)
        return ids
    }

    /// The agent-wide part only (what the single `scheduler_state` row keeps).
    public var globalsOnly: PersistedSchedule {
        PersistedSchedule(paused: paused, budgetDay: budgetDay, budgetSpent: budgetSpent,
                          budgetLedgers: budgetLedgers, submissions: submissions)
    }

    /// Sets the row of `id` (an empty row removes it).
    public mutating func set(_ record: IdentifierSchedule, for id: Identifier) {
        lastRunStart[id] = record.lastRunStart
        lastSuccess[id] = record.lastSuccess
        consecutiveFailures[id] = record.consecutiveFailures
        if record.disabled { disabled.insert(id) } else { disabled.remove(id) }
        if record.pendingTrigger { pendingTriggers.insert(id) } else { pendingTriggers.remove(id) }
        pendingRetries[id] = record.pendingRetry
        if record.pendingChained { pendingChained.insert(id) } else { pendingChained.remove(id) }
        lastTriggerLaunch[id] = record.lastTriggerLaunch
        pendingRequests[id] = record.pendingRequest
    }

    /// This schedule with `changes` applied: what the database holds after writing them.
    public func applying(_ changes: ScheduleChanges) -> PersistedSchedule {
        var result = changes.globals
        result.lastRunStart = lastRunStart
        result.lastSuccess = lastSuccess
        result.consecutiveFailures = consecutiveFailures
        result.disabled = disabled
        result.pendingTriggers = pendingTriggers
        result.lastTriggerLaunch = lastTriggerLaunch
        result.pendingRetries = pendingRetries
        result.pendingChained = pendingChained
        result.pendingRequests = pendingRequests
        for (id, record) in changes.records { result.set(record, for: id) }
        return result
    }
}
