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
        warnings(chained: chainedJobs(registry), registry, quotesPrivateFiles: quotesPrivateFiles)
    }

    /// The same, given the registered jobs with a chain line (`chainedJobs`), by identifier.
    public static func warnings(chained: [RegisteredJob], _ registry: ConfigRegistry,
                                quotesPrivateFiles: Bool) -> [ConfigDiagnostic] {
        var warnings: [ConfigDiagnostic] = []
        // The names a suggestion picks from, made only when some chain names no job.
        var running: [String]?
        for job in chained {
            for (key, target, when) in [("OnSuccess", job.definition.onSuccess, "a success"),
                                         ("OnFailure", job.definition.extra.onFailure, "a failure")]
            {
                guard let target, registry.job(target)?.state != .registered else { continue }
                // Not defined, not permitted, a duplicate's loser or a file with errors: each
                // of the latter has its own diagnostic.
                let message: String
                if quotesPrivateFiles || job.isPublic {
                    let names = running ?? registry.allJobs.filter { $0.state == .registered }.map(\.definition.identifier.rawValue)
                    running = names
                    message = "\(key)=\(target.rawValue): no job agentd runs has that identifier"
                        + (NameSuggestion.closest(to: target.rawValue, among: names).map { " (did you mean \($0)?)" } ?? "")
                        + ", so \(when) launches nothing; add a job with Identifier=\(target.rawValue) or remove the line"
                } else {
                    message = "\(key): names no job agentd runs, so \(when) launches nothing " + DiagnosticRedaction.note
                }
                warnings.append(ConfigDiagnostic(path: job.sourcePath, severity: .warning, message: message))
            }
        }
        return warnings + failureCycles(chained, quotesPrivateFiles: quotesPrivateFiles)
    }

    /// The registered jobs with an `OnSuccess=` or `OnFailure=`, by identifier: only they can
    /// name a missing job or be on a cycle, and on a large machine they are few.
    public static func chainedJobs(_ registry: ConfigRegistry) -> [RegisteredJob] {
        var chained: [RegisteredJob] = []
        registry.forEachRegistered { job in
            if chains(job.definition) { chained.append(job) }
        }
        return chained.sorted { $0.definition.identifier < $1.definition.identifier }
    }

    /// Whether `definition` has a chain line (only such a job can name a missing one).
    public static func chains(_ definition: JobDefinition) -> Bool {
        definition.onSuccess != nil || definition.extra.onFailure != nil
    }

    /// `OnSuccess=` cycles are refused at load; a cycle that passes through an `OnFailure=`
    /// (A fails → B, B fails → A) runs only while its jobs fail, so it loads, but it starts them
    /// again and again (once per `TriggerSpacing=`) while they do: one warning per cycle, on the
    /// file of its first job.
    static func failureCycles(_ chained: [RegisteredJob], quotesPrivateFiles: Bool) -> [ConfigDiagnostic] {
        var next: [Identifier: [(key: String, target: Identifier)]] = [:]
        var paths: [Identifier: String] = [:]
        var hidden: Set<Identifier> = []
        for job in chained {
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
