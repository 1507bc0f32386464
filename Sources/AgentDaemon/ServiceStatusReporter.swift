// SPDX-License-Identifier: Apache-2.0
import AgentSystem

/// The one-line summary systemd shows (`systemctl status agentd`), sent as STATUS= when it
/// changes. Counting the waiting requests walks every job, so it is recounted at most once a
/// second, and only under a service manager.
final class ServiceStatusReporter {
    private let service: ServiceNotifier
    private let loop: EventLoop
    private let catalogue: JobCatalogue
    private let state: StateDirectory
    private let runs: RunSupervisor
    private let scheduling: SchedulerDriver
    private var waitingCount = 0
    private var refresh: TimerToken?
    private var lastSent = ""

    init(service: ServiceNotifier, loop: EventLoop, catalogue: JobCatalogue, state: StateDirectory,
         runs: RunSupervisor, scheduling: SchedulerDriver) {
        self.service = service
        self.loop = loop
        self.catalogue = catalogue
        self.state = state
        self.runs = runs
        self.scheduling = scheduling
    }

    var text: String {
        let errors = catalogue.errorCount
        var text = "\(Self.count(catalogue.registry.jobCount, "job")) loaded, \(runs.liveCount) running, \(waitingCount) waiting"
        if errors > 0 { text += ", \(Self.count(errors, "config error"))" }
        if state.writeProblem != nil { text += ", state directory unusable" }
        return text
    }

    /// READY=1 with the first summary.
    func ready() {
        lastSent = text
        service.ready(status: lastSent)
    }

    /// Something the summary counts changed (config, a run's start or end). Nothing to do
    /// without a service manager to tell.
    func update() {
        guard service.isUnderServiceManager else { return }
        if refresh == nil {
            refresh = loop.schedule(after: .seconds(1)) { [unowned self] in
                self.refresh = nil
                self.waitingCount = self.scheduling.scheduler.waitingSummary(now: self.scheduling.now, limit: 0).total
                self.send()
            }
        }
        send()
    }

    private func send() {
        let current = text
        guard current != lastSent else { return }
        lastSent = current
        service.status(current)
    }

    /// `1 job`, `2 jobs`.
    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}
