// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import AgentSystem
import Glibc

/// Keeps `MetricsFile=` current: something that may change a figure marks the metrics dirty;
/// the first mark arms one timer, at most one render per `MetricsInterval=`, and the file is
/// replaced (atomically) only when the rendered text differs from what was last written. With
/// nothing dirty there is no timer, so an idle agent stays idle and the file keeps its mtime.
final class MetricsFileWriter {
    private unowned let agent: Agent
    private var timer: TimerToken?
    private var lastRender: MonotonicInstant?
    private var written: (path: String, text: String)?
    private var lastProblem: String?

    init(agent: Agent) {
        self.agent = agent
    }

    func markDirty() {
        guard timer == nil else { return }
        guard agent.config.registry.settings.metricsFile != nil else {
            removeWritten()
            return
        }
        let interval = agent.config.registry.settings.metricsInterval
        let due = lastRender.map { max($0 + interval, agent.loop.now) } ?? agent.loop.now
        timer = agent.loop.schedule(at: due) { [unowned self] in
            self.timer = nil
            self.writeIfChanged()
        }
    }

    private func writeIfChanged() {
        guard let path = agent.config.registry.settings.metricsFile else {
            removeWritten()
            return
        }
        lastRender = agent.loop.now
        let text = PrometheusText.render(agent.metricsSnapshot())
        if let written, written.path == path, written.text == text { return }
        do {
            try AtomicFile.replace(path, with: Array(text.utf8))
            if written?.path != path { removeWritten() }
            written = (path, text)
            if lastProblem != nil { agent.log.notice("metrics file \(path) is written again") }
            lastProblem = nil
        } catch {
            let problem = "metrics file: \(error) (create the directory, or fix MetricsFile= in agentd.conf)"
            if problem != lastProblem { agent.log.warning(problem) }
            lastProblem = problem
        }
    }

    /// MetricsFile= was changed or removed: the file written before goes, so that node_exporter does
    /// not export stale figures (or the same series twice) from it.
    private func removeWritten() {
        guard let old = written else { return }
        written = nil
        if unlink(old.path) == 0 { agent.log.info("metrics file \(old.path) removed (MetricsFile= changed)") }
    }
}
