// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol

/// The configuration as last loaded, read-only: what components look jobs and settings up in.
/// Only ``ConfigFollower`` changes it, from inotify events and SIGHUP.
protocol JobCatalogue: AnyObject {
    var registry: ConfigRegistry { get }
    /// The config watcher's health, for `status`; nil before the watcher started.
    var watchStatus: ConfigWatchStatus? { get }
    /// Warnings about the config directories themselves (others may write to them), as now.
    var directoryWarnings: [ConfigDiagnostic] { get }
    /// What only the whole set of jobs shows, as `check` says it: jobs that need more launches a
    /// day than their budget (DESIGN §3), and chains that name no job or cycle through `OnFailure=`.
    var crossJobWarnings: [ConfigDiagnostic] { get }
    /// Read from `registry` unless a catalogue keeps its jobs another way (daemon scripts).
    var settings: AgentSettings { get }
    var registeredDefinitions: [JobDefinition] { get }
    func registeredDefinition(_ id: Identifier) -> JobDefinition?
    /// The drop-in script `id` names, if it is there but not read yet (it waits to settle:
    /// ``PendingDropIns``), is read now: a request naming it (`cp x jobs.d/ && agentctl run
    /// local.x`) finds it.
    func readPendingScript(for id: Identifier)
}

extension JobCatalogue {
    var settings: AgentSettings { registry.settings }

    /// Catalogues without directories of their own (daemon scripts) have nothing to say of them.
    var directoryWarnings: [ConfigDiagnostic] { [] }

    /// Worked out whole at each call: catalogues without a watcher (daemon scripts) are small.
    var crossJobWarnings: [ConfigDiagnostic] { CrossJobWarnings.all(registry) }

    /// Catalogues without a watcher have nothing waiting.
    func readPendingScript(for id: Identifier) {}

    /// The definitions the scheduler knows: registered jobs only.
    var registeredDefinitions: [JobDefinition] {
        registry.allJobs.compactMap { job in
            if case .registered = job.state { return job.definition }
            return nil
        }
    }

    /// The registered definition of `id`, if it has one.
    func registeredDefinition(_ id: Identifier) -> JobDefinition? {
        guard let job = registry.job(id), case .registered = job.state else { return nil }
        return job.definition
    }

    var errorCount: Int { registry.diagnostics.filter { $0.severity == .error }.count }
}
