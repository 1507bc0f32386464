// SPDX-License-Identifier: Apache-2.0
/// How a run's main process ended, as the kernel reports it (pidfd / waitid).
public enum ProcessTermination: Hashable, Sendable {
    /// Exited by itself with this status.
    case exited(Int32)
    /// Killed by this signal.
    case signaled(Int32)
}

extension StopReason {
    /// The one result of a run from how its main process ended and what the agent did to it
    /// (DESIGN §5 "Completion").
    ///
    /// - A run the agent expired is `expired(reason)` however it ends — also when it exits 0
    ///   inside the grace period, or dies of the agent's own SIGKILL. Its exit status is recorded
    ///   beside by the caller.
    /// - A run a person cancelled is `cancelled`, likewise however it ends.
    /// - Otherwise exit 0 is `success`, another exit status `failure(exit N)`, and death by a
    ///   signal `crashed(signal N)`.
    ///
    /// The core stops a run only once, so `expiredFor` and `cancelled` are not both expected; if
    /// they are, expiry wins, since the contract says an expired run is expired however it ends.
    public static func resolve(
        termination: ProcessTermination, expiredFor: ExpiryReason?, cancelled: Bool
    ) -> StopReason {
        if let expiredFor { return .expired(expiredFor) }
        if cancelled { return .cancelled }
        switch termination {
        case .exited(0): return .success
        case .exited(let status): return .failure(exitStatus: status)
        case .signaled(let signal): return .crashed(signal: signal)
        }
    }

    /// How a run that nobody stopped ended: `SuccessExitStatus=` (exit statuses and signals)
    /// counts as success besides exit 0, as in systemd.service(5).
    public static func resolve(termination: ProcessTermination, success: SuccessExitStatus) -> StopReason {
        switch termination {
        case .exited(let status) where success.countsAsSuccess(exitStatus: status): .success
        case .signaled(let signal) where success.countsAsSuccess(signal: signal): .success
        default: resolve(termination: termination, expiredFor: nil, cancelled: false)
        }
    }
}
