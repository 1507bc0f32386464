// SPDX-License-Identifier: Apache-2.0
/// `check`'s warning for an `OnSuccess=`/`OnFailure=` that names no job the agent would run.
/// The agent itself notices only when the chain fires (a log line at the first success): the
/// job named may simply come later, so loading does not refuse it, but `check` sees the whole
/// directory at once.
public enum ChainTargetCheck {
    /// One warning per chain of a registered job of `registry` whose target no registered job
    /// defines.
    /// `quotesPrivateFiles` false (the agent's `status`): a file not every reader may read is
    /// named without the identifiers it chains to.
    public static func warnings(_ registry: ConfigRegistry, quotesPrivateFiles: Bool = true) -> [ConfigDiagnostic] {
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
                let message = quotesPrivateFiles || job.isPublic
                    ? "\(key)=\(target.rawValue): no job agentd runs has that identifier"
                        + (NameSuggestion.closest(to: target.rawValue, among: running).map { " (did you mean \($0)?)" } ?? "")
                        + ", so \(when) launches nothing; add a job with Identifier=\(target.rawValue) or remove the line"
                    : "\(key): names no job agentd runs, so \(when) launches nothing " + DiagnosticRedaction.note
                warnings.append(ConfigDiagnostic(path: job.sourcePath, severity: .warning, message: message))
            }
        }
        return warnings + failureCycles(registry, quotesPrivateFiles: quotesPrivateFiles)
    }

    /// `OnSuccess=` cycles are refused at load; a cycle that passes through an `OnFailure=`
    /// (A fails → B, B fails → A) runs only while its jobs fail, so it loads, but it starts them
    /// again and again (once per `TriggerSpacing=`) while they do: one warning per cycle, on the
    /// file of its first job.
    static func failureCycles(_ registry: ConfigRegistry, quotesPrivateFiles: Bool) -> [ConfigDiagnostic] {
        var next: [Identifier: [(key: String, target: Identifier)]] = [:]
        var paths: [Identifier: String] = [:]
        var hidden: Set<Identifier> = []
        for job in registry.allJobs {
            guard case .registered = job.state else { continue }
            let id = job.definition.identifier
            paths[id] = job.sourcePath
            if !quotesPrivateFiles, !job.isPublic { hidden.insert(id) }
            next[id] = [("OnSuccess", job.definition.onSuccess), ("OnFailure", job.definition.extra.onFailure)]
                .compactMap { key, target in target.map { (key, $0) } }
        }
        var reported: Set<Set<Identifier>> = []
        var warnings: [ConfigDiagnostic] = []
        for start in next.keys.sorted() {
            guard let cycle = cycle(from: start, next), cycle.contains(where: { $0.key == "OnFailure" }) else { continue }
            let members = Set(cycle.map(\.from))
            guard reported.insert(members).inserted, let path = paths[start] else { continue }
            let route = cycle.map { "\($0.from) (\($0.key)=)" }.joined(separator: " → ") + " → \(start)"
            let message = members.isDisjoint(with: hidden)
                ? "chains form a cycle through OnFailure=: \(route); while they fail they start each other "
                    + "again, once every TriggerSpacing=: remove one of these lines"
                : "chains form a cycle through OnFailure=; while they fail they start each other again "
                    + DiagnosticRedaction.note
            warnings.append(ConfigDiagnostic(path: path, severity: .warning, message: message))
        }
        return warnings
    }

    /// The first cycle back to `start` along chain lines, each step the job it leaves and the key
    /// it takes; nil when none comes back.
    private static func cycle(from start: Identifier, _ next: [Identifier: [(key: String, target: Identifier)]])
        -> [(from: Identifier, key: String)]? {
        var path: [(from: Identifier, key: String)] = []
        var onPath: Set<Identifier> = []
        func visit(_ id: Identifier) -> Bool {
            onPath.insert(id)
            for edge in next[id] ?? [] {
                path.append((id, edge.key))
                if edge.target == start { return true }
                if !onPath.contains(edge.target), visit(edge.target) { return true }
                path.removeLast()
            }
            onPath.remove(id)
            return false
        }
        return visit(start) ? path : nil
    }
}
