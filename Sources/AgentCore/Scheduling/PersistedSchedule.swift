// SPDX-License-Identifier: Apache-2.0
/// The scheduler state that survives a restart (DESIGN §10): history that decides when jobs
/// are due, the budget ledgers, people's choices, and every pending request.
///
/// Small by design: a few entries per job. `Codable` with identifier-keyed maps as JSON
/// objects (`{"com.example.a": 1796083200}`); every field is optional when decoding, so older
/// and newer snapshots still load, and entries whose key is not an identifier are skipped.
public struct PersistedSchedule: Sendable, Hashable, Codable {
    /// When each identifier's last run started (drives `Interval=` and trigger spacing).
    public var lastRunStart: [Identifier: SchedulerTime]
    public var lastSuccess: [Identifier: SchedulerTime]
    /// Consecutive failures (`failure`, `crashed`, `spawn-failed`) since the last success.
    public var consecutiveFailures: [Identifier: Int]
    /// `agentctl disable`d identifiers ("denied").
    public var disabled: Set<Identifier>
    /// `agentctl pause`.
    public var paused: Bool
    /// The local day (`YYYY-MM-DD`) `budgetSpent` counts.
    public var budgetDay: String
    /// Discretionary launches on `budgetDay`: the ledger a manifest starts from until it
    /// launches (`BudgetLedgers.template`). A state written before per-manifest budgets has only
    /// this one, the agent-wide ledger: every manifest then starts that day with what it says.
    public var budgetSpent: Int
    /// Each manifest's own ledger, by manifest name (absent in older state).
    public var budgetLedgers: [String: BudgetLedgerEntry]
    /// Identifiers with a pending (merged) trigger.
    public var pendingTriggers: Set<Identifier>
    /// Queued continued submissions, oldest first (FIFO).
    public var submissions: [Submission]
    /// When each identifier's last launch with reason `triggered` happened (informational: the
    /// trigger spacing counts from the last launch of any reason, `lastRunStart`).
    public var lastTriggerLaunch: [Identifier: SchedulerTime]
    /// Pending `Retry=` requests and when they are due (added to the brief's API).
    public var pendingRetries: [Identifier: SchedulerTime]
    /// Pending `OnSuccess=` requests (added to the brief's API).
    public var pendingChained: Set<Identifier>
    /// Pending run-time requests (`agentctl request`), with their earliest begin and
    /// requirements.
    public var pendingRequests: [Identifier: RunRequest]

    public init(lastRunStart: [Identifier: SchedulerTime] = [:],
                lastSuccess: [Identifier: SchedulerTime] = [:],
                consecutiveFailures: [Identifier: Int] = [:], disabled: Set<Identifier> = [],
                paused: Bool = false, budgetDay: String = "", budgetSpent: Int = 0,
                budgetLedgers: [String: BudgetLedgerEntry] = [:],
                pendingTriggers: Set<Identifier> = [], submissions: [Submission] = [],
                lastTriggerLaunch: [Identifier: SchedulerTime] = [:],
                pendingRetries: [Identifier: SchedulerTime] = [:],
                pendingChained: Set<Identifier> = [], pendingRequests: [Identifier: RunRequest] = [:])
    {
        self.pendingRequests = pendingRequests
        self.lastRunStart = lastRunStart
        self.lastSuccess = lastSuccess
        self.consecutiveFailures = consecutiveFailures
        self.disabled = disabled
        self.paused = paused
        self.budgetDay = budgetDay
        self.budgetSpent = budgetSpent
        self.budgetLedgers = budgetLedgers
        self.pendingTriggers = pendingTriggers
        self.submissions = submissions
        self.lastTriggerLaunch = lastTriggerLaunch
        self.pendingRetries = pendingRetries
        self.pendingChained = pendingChained
    }

    /// Nothing known: a first start.
    public static let empty = PersistedSchedule()

    private enum CodingKeys: String, CodingKey {
        case lastRunStart, lastSuccess, consecutiveFailures, disabled, paused, budgetDay,
             budgetSpent, budgetLedgers, pendingTriggers, submissions, lastTriggerLaunch, pendingRetries,
             pendingChained, pendingRequests
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func map<V: Decodable>(_ key: CodingKeys, _: V.Type) throws -> [Identifier: V] {
            let raw = try c.decodeIfPresent([String: V].self, forKey: key) ?? [:]
            var result: [Identifier: V] = [:]
            for (name, value) in raw {
                if let id = Identifier(rawValue: name) { result[id] = value }
            }
            return result
        }
        func set(_ key: CodingKeys) throws -> Set<Identifier> {
            let raw = try c.decodeIfPresent([String].self, forKey: key) ?? []
            return Set(raw.compactMap(Identifier.init(rawValue:)))
        }
        lastRunStart = try map(.lastRunStart, SchedulerTime.self)
        lastSuccess = try map(.lastSuccess, SchedulerTime.self)
        consecutiveFailures = try map(.consecutiveFailures, Int.self)
        disabled = try set(.disabled)
        paused = try c.decodeIfPresent(Bool.self, forKey: .paused) ?? false
        budgetDay = try c.decodeIfPresent(String.self, forKey: .budgetDay) ?? ""
        budgetSpent = try c.decodeIfPresent(Int.self, forKey: .budgetSpent) ?? 0
        budgetLedgers = try c.decodeIfPresent([String: BudgetLedgerEntry].self, forKey: .budgetLedgers) ?? [:]
        pendingTriggers = try set(.pendingTriggers)
        submissions = try c.decodeIfPresent([Submission].self, forKey: .submissions) ?? []
        lastTriggerLaunch = try map(.lastTriggerLaunch, SchedulerTime.self)
        pendingRetries = try map(.pendingRetries, SchedulerTime.self)
        pendingChained = try set(.pendingChained)
        pendingRequests = try map(.pendingRequests, RunRequest.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        func map<V: Encodable>(_ value: [Identifier: V]) -> [String: V] {
            var result: [String: V] = [:]
            for (id, entry) in value { result[id.rawValue] = entry }
            return result
        }
        // Sets are written sorted so equal snapshots encode to equal bytes.
        func list(_ value: Set<Identifier>) -> [String] { value.sorted().map(\.rawValue) }
        try c.encode(map(lastRunStart), forKey: .lastRunStart)
        try c.encode(map(lastSuccess), forKey: .lastSuccess)
        try c.encode(map(consecutiveFailures), forKey: .consecutiveFailures)
        try c.encode(list(disabled), forKey: .disabled)
        try c.encode(paused, forKey: .paused)
        try c.encode(budgetDay, forKey: .budgetDay)
        try c.encode(budgetSpent, forKey: .budgetSpent)
        try c.encode(budgetLedgers, forKey: .budgetLedgers)
        try c.encode(list(pendingTriggers), forKey: .pendingTriggers)
        try c.encode(submissions, forKey: .submissions)
        try c.encode(map(lastTriggerLaunch), forKey: .lastTriggerLaunch)
        try c.encode(map(pendingRetries), forKey: .pendingRetries)
        try c.encode(list(pendingChained), forKey: .pendingChained)
        try c.encode(map(pendingRequests), forKey: .pendingRequests)
    }
}
