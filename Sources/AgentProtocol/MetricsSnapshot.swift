// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// What `agentctl metrics` and `MetricsFile=` show (DESIGN §8): the agent's state as
/// numbers, answered by the agent as data and rendered by ``PrometheusText`` (agentctl renders the
/// answer, the agent renders the same snapshot into its metrics file).
///
/// Cardinality is bounded: identifiers appear only for jobs that exist (registered now; a submission's
/// dynamic identifier counts under its job), kinds and stop-reason kinds are fixed sets.
public struct MetricsSnapshot: Codable, Sendable, Hashable {
    public var version: String
    /// Unix seconds when the agent started.
    @Instant<EpochSeconds> public var startedAt: Int64
    public var jobCount: Int
    public var configErrorCount: Int
    public var paused: Bool
    /// Whether the state database is usable.
    public var stateWritable: Bool
    /// Live runs per kind; every kind is listed, 0 included.
    public var running: [KindCount]
    /// Waiting work per kind; every kind is listed, 0 included.
    public var pending: [KindCount]
    /// Launch budgets, one per manifest.
    public var budgets: [BudgetFigures]
    /// Runs ended since the agent started, per job and stop-reason kind.
    public var runsEnded: [RunsEnded]
    /// Run durations since the agent started, per kind.
    public var durations: [DurationHistogram]
    /// One entry per registered job.
    public var jobs: [JobFigures]
    public var conditions: ConditionFigures?

    public init(version: String, startedAt: Int64, jobCount: Int, configErrorCount: Int, paused: Bool,
                stateWritable: Bool, running: [KindCount], pending: [KindCount], budgets: [BudgetFigures],
                runsEnded: [RunsEnded], durations: [DurationHistogram], jobs: [JobFigures],
                conditions: ConditionFigures?) {
        self.version = version
        self.startedAt = startedAt
        self.jobCount = jobCount
        self.configErrorCount = configErrorCount
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

/// Runs (live, or waiting to start) of one kind.
public struct KindCount: Codable, Sendable, Hashable {
    public var kind: JobKind
    public var runCount: Int

    public init(kind: JobKind, runCount: Int) {
        self.kind = kind
        self.runCount = runCount
    }
}

/// One launch budget: a manifest's launches spent and left today of those a day allows
/// (`status` and `metrics`).
public struct BudgetFigures: Codable, Sendable, Hashable {
    /// The manifest whose budget it is (`com.example.photos` for
    /// `manifests.d/com.example.photos.manifest`); `all` only when no manifest is known.
    public var manifest: String
    public var dailyLaunchCount: Int
    public var spentLaunchCount: Int
    public var leftLaunchCount: Int
    /// `DailyBudget=infinity`: the counts above hold `AgentSettings.unlimitedDailyBudget`
    /// (Int.max in JSON, as docs/json.md says), which people read as "unlimited" and Prometheus as +Inf.
    public var isUnlimited: Bool { dailyLaunchCount == AgentSettings.unlimitedDailyBudget }
    /// When it refills: the next local midnight (unix seconds; RFC 3339 in JSON).
    @OptionalInstant<EpochSeconds> public var refillsAt: Int64?

    public init(manifest: String, dailyLaunchCount: Int, spentLaunchCount: Int, leftLaunchCount: Int,
                refillsAt: Int64? = nil) {
        self.manifest = manifest
        self.dailyLaunchCount = dailyLaunchCount
        self.spentLaunchCount = spentLaunchCount
        self.leftLaunchCount = leftLaunchCount
        self.refillsAt = refillsAt
    }

    /// The figures of one manifest's day as the scheduler keeps it.
    public init(_ standing: BudgetStanding) {
        self.init(manifest: standing.account, dailyLaunchCount: standing.limit, spentLaunchCount: standing.used,
                  leftLaunchCount: standing.remaining,
                  refillsAt: Int64(standing.refillsAt.seconds.rounded(.down)))
    }
}

public struct RunsEnded: Codable, Sendable, Hashable {
    public var identifier: String
    /// The DESIGN §7 kind as the metric's label, without numbers: `success`, `failure`,
    /// `expired_max_runtime`… (`StopReason.kindLabel`).
    public var stopReasonLabel: String
    public var runCount: Int

    public init(identifier: String, stopReasonLabel: String, runCount: Int) {
        self.identifier = identifier
        self.stopReasonLabel = stopReasonLabel
        self.runCount = runCount
    }
}

/// A cumulative histogram of run durations.
public struct DurationHistogram: Codable, Sendable, Hashable {
    public var kind: JobKind
    /// Ascending bounds; each bucket counts the runs that took at most its bound.
    public var buckets: [DurationBucket]
    /// All runs (the `+Inf` bucket).
    public var runCount: Int
    public var sumSeconds: Double

    public init(kind: JobKind, buckets: [DurationBucket], runCount: Int, sumSeconds: Double) {
        self.kind = kind
        self.buckets = buckets
        self.runCount = runCount
        self.sumSeconds = sumSeconds
    }
}

public struct DurationBucket: Codable, Sendable, Hashable {
    public var upperBoundSeconds: Double
    public var runCount: Int

    public init(upperBoundSeconds: Double, runCount: Int) {
        self.upperBoundSeconds = upperBoundSeconds
        self.runCount = runCount
    }
}

public struct JobFigures: Codable, Sendable, Hashable {
    public var identifier: String
    public var kind: JobKind
    /// Unix milliseconds when the last success on record ended, nil if none.
    @OptionalInstant<EpochMilliseconds> public var lastSuccessAt: Int64?
    /// 0...1: the `stats` "fresh days" figure (``FreshDays``).
    public var freshDayShare: Double

    public init(identifier: String, kind: JobKind, lastSuccessAt: Int64?, freshDayShare: Double) {
        self.identifier = identifier
        self.kind = kind
        self.lastSuccessAt = lastSuccessAt
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
    /// The network counts as metered (NetworkManager's yes or guess-yes).
    public var metered: Bool
    public var memoryPressure: Bool

    public init(externalPower: Bool, batteryPercent: Int?, thermal: String, lowPower: Bool, network: Bool,
                metered: Bool = false, memoryPressure: Bool) {
        self.externalPower = externalPower
        self.batteryPercent = batteryPercent
        self.thermal = thermal
        self.lowPower = lowPower
        self.network = network
        self.metered = metered
        self.memoryPressure = memoryPressure
    }

    public init(_ inputs: MachineInputs) {
        self.init(externalPower: inputs.power == .known(.ac), batteryPercent: inputs.batteryPercent,
                  thermal: inputs.thermal.description, lowPower: inputs.lowPower, network: inputs.network,
                  metered: inputs.metered == .known(.yes), memoryPressure: inputs.memoryPressure)
    }
}
