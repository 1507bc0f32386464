// SPDX-License-Identifier: Apache-2.0
/// `check`'s warning for an `OnSuccess=`/`OnFailure=` that names no job the agent would run.
/// The agent itself notices only when the chain fires (a log line at the first success): the
/// job named may simply come later, so loading does not refuse it, but `check` sees the whole
/// directory at once.
public enum ChainTargetCheck {
    /// One warning per chain of a registered job of `registry` whose target no registered job
    /// defines.
    public static func warnings(_ registry: ConfigRegistry) -> [ConfigDiagnostic] {
        var warnings: [ConfigDiagnostic] = []
        let running = registry.allJobs.filter { $0.state == .registered }.map(\.definition.identifier.rawValue)
        for job in registry.allJobs {
            guard case .registered = job.state else { continue }
            for (key, target, when) in [("OnSuccess", job.definition.onSuccess, "a success"),
                                         ("OnFailure", job.definition.extra.onFailure, "a failure")]
            {
                guard let target, registry.job(target)?.state != .registered else { continue }
                // Not defined, not permitted, a duplicate's loser or a file with errors: each
                // of the latter has its own diagnostic.
                warnings.append(ConfigDiagnostic(
                    path: job.sourcePath, severity: .warning,
                    message: "\(key)=\(target.rawValue): no job agentd runs has that identifier"
                        + (NameSuggestion.closest(to: target.rawValue, among: running).map { " (did you mean \($0)?)" } ?? "")
                        + ", so \(when) launches nothing; add a job with Identifier=\(target.rawValue) or remove the line"))
            }
        }
        return warnings
    }
}
