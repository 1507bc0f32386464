// SPDX-License-Identifier: Apache-2.0
/// What `agentctl metrics` and `MetricsFile=` show (DESIGN §8, issue #16): the agent's state as
/// numbers, answered by the agent as data and rendered by ``PrometheusText`` (agentctl renders the
/// answer, the agent renders the same snapshot into its metrics file).
///
/// Cardinality is bounded: identifiers appear only for jobs that exist (registered now; a submission's
/// dynamic identifier counts under its job), kinds and stop-reason kinds are fixed sets.
public struct MetricsSnapshot: Codable, Sendable, Hashable {
    public var version: String
    /// Unix seconds when the agent started.
    public var startedAt: Int64
    public var jobCount: Int
    public var configErrors: Int
    public var paused: Bool
    /// Whether the state database is usable.
    public var stateWritable: Bool
    /// Live runs per kind; every kind is listed, 0 included.
    public var running: [KindCount]
    /// Waiting work per kind; every kind is listed, 0 included.
    public var pending: [KindCount]
    /// Launch budgets; today one global budget, `manifest` "all".
    public var budgets: [BudgetFigures]
    /// Runs ended since the agent started, per job and stop-reason kind.
    public var runsEnded: [RunsEnded]
    /// Run durations since the agent started, per kind.
    public var durations: [DurationHistogram]
    /// One entry per registered job.
    public var jobs: [JobFigures]
    public var conditions: ConditionFigures?

    public init(version: String, startedAt: Int64, jobCount: Int, configErrors: Int, paused: Bool,
                stateWritable: Bool, running: [KindCount], pending: [KindCount], budgets: [BudgetFigures],
                runsEnded: [RunsEnded], durations: [DurationHistogram], jobs: [JobFigures],
                conditions: ConditionFigures?) {
        self.version = version
        self.startedAt = startedAt
        self.jobCount = jobCount
        self.configErrors = configErrors
        self.paused = paused
        self.stateWritable = stateWritable
        self.running = running
        self.pending = pending
        self.budgets = budgets
        self.runsEnded = runsEnded
        self.durations = durations
        self.jobs = jobs
        self.conditions = conditions
    }
}

public struct KindCount: Codable, Sendable, Hashable {
    public var kind: String
    public var count: Int

    public init(kind: String, count: Int) {
        self.kind = kind
        self.count = count
    }
}

/// One launch budget: spent and left of `daily` today.
public struct BudgetFigures: Codable, Sendable, Hashable {
    /// `all` for the global `DailyBudget=`; per-manifest budgets will name their manifest.
    public var manifest: String
    public var daily: Int
    public var spent: Int
    public var left: Int

    public init(manifest: String, daily: Int, spent: Int, left: Int) {
        self.manifest = manifest
        self.daily = daily
        self.spent = spent
        self.left = left
    }
}

public struct RunsEnded: Codable, Sendable, Hashable {
    public var identifier: String
    /// The DESIGN §7 kind, without numbers: `success`, `failure`, `expired_max_runtime`…
    public var stopReason: String
    public var count: Int

    public init(identifier: String, stopReason: String, count: Int) {
        self.identifier = identifier
        self.stopReason = stopReason
        self.count = count
    }
}

/// A cumulative histogram: `counts[i]` runs took at most `bounds[i]` seconds.
public struct DurationHistogram: Codable, Sendable, Hashable {
    public var kind: String
    public var boundsSeconds: [Double]
    public var counts: [Int]
    public var count: Int
    public var sumSeconds: Double

    public init(kind: String, boundsSeconds: [Double], counts: [Int], count: Int, sumSeconds: Double) {
        self.kind = kind
        self.boundsSeconds = boundsSeconds
        self.counts = counts
        self.count = count
        self.sumSeconds = sumSeconds
    }
}

public struct JobFigures: Codable, Sendable, Hashable {
    public var identifier: String
    public var kind: String
    /// Unix seconds of the last success on record, nil if none.
    public var lastSuccess: Double?
    /// 0...1: the `stats` "fresh days" figure (``FreshDays``).
    public var freshDayShare: Double

    public init(identifier: String, kind: String, lastSuccess: Double?, freshDayShare: Double) {
        self.identifier = identifier
        self.kind = kind
        self.lastSuccess = lastSuccess
        self.freshDayShare = freshDayShare
    }
}

public struct ConditionFigures: Codable, Sendable, Hashable {
    public var externalPower: Bool
    public var batteryPercent: Int?
    /// `nominal`, `fair`, `serious`, `critical`.
    public var thermal: String
    public var lowPower: Bool
    public var network: Bool
    public var memoryPressure: Bool

    public init(externalPower: Bool, batteryPercent: Int?, thermal: String, lowPower: Bool, network: Bool,
                memoryPressure: Bool) {
        self.externalPower = externalPower
        self.batteryPercent = batteryPercent
        self.thermal = thermal
        self.lowPower = lowPower
        self.network = network
        self.memoryPressure = memoryPressure
    }

    public init(_ inputs: MachineInputs) {
        self.init(externalPower: inputs.power == "ac", batteryPercent: inputs.batteryPercent,
                  thermal: inputs.thermal, lowPower: inputs.lowPower, network: inputs.network,
                  memoryPressure: inputs.memoryPressure)
    }
}
