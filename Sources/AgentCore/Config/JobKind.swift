// SPDX-License-Identifier: Apache-2.0
/// The three kinds of background work (DESIGN §4), after iOS's BGAppRefreshTask,
/// BGProcessingTask and BGContinuedProcessingTask.
public enum JobKind: String, CaseIterable, Sendable, Codable {
    /// Short, periodic, started by the agent after `Interval=` or a trigger (~30 s budget).
    case refresh
    /// Minutes of deferrable work, started by the agent when its constraints hold.
    case processing
    /// Started by a person through `agentctl submit`, bound by progress rather than time.
    case continued

    /// `MaxRuntime=` when the job sets none: refresh 30 s, processing 10 min, continued none.
    public var defaultMaxRuntime: Duration? {
        switch self {
        case .refresh: return .seconds(30)
        case .processing: return .seconds(600)
        case .continued: return nil
        }
    }

    /// "refresh, processing, continued", for messages.
    public static let validNames = allCases.map(\.rawValue).joined(separator: ", ")
}

/// `OnConditionLost=`: what happens to a run whose needed condition (power, network, thermal)
/// goes away.
public enum ConditionLostAction: String, CaseIterable, Sendable, Codable {
    /// Expire it (SIGTERM, grace period, SIGKILL), recording the lost condition.
    case expire
    /// Freeze it until the condition returns, at most `MaxPause=`.
    case pause
}

/// `OnSleep=`: what happens to a live run when the machine is about to sleep (logind's
/// `PrepareForSleep`).
public enum SleepAction: String, CaseIterable, Sendable, Codable {
    /// Freeze it over the suspend and thaw it on the resume.
    case freeze
    /// Expire it `expired(sleep)`, its grace period shortened to fit logind's delay.
    case expire
}
