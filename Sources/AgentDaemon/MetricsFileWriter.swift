// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import AgentSystem
import Glibc

/// Keeps `MetricsFile=` current: something that may change a figure marks the metrics dirty;
/// the first mark arms one timer, at most one render per `MetricsInterval=`, and the file is
/// replaced (atomically) only when the rendered text differs from what was last written. With
/// nothing dirty there is no timer, so an idle agent stays idle and the file keeps its mtime.
final class MetricsFileWriter {
    private let loop: any EventLooping
    private let log: Logger
    private let catalogue: JobCatalogue
    private let snapshot: () -> MetricsSnapshot
    private var timer: TimerToken?
    private var lastRender: MonotonicInstant?
    private var written: (path: String, text: String)?
    private var lastProblem: String?

    init(loop: any EventLooping, log: Logger, catalogue: JobCatalogue, snapshot: @escaping () -> MetricsSnapshot) {
        self.loop = loop
        self.log = log
        self.catalogue = catalogue
        self.snapshot = snapshot
    }

    func markDirty() {
        guard timer == nil else { return }
        guard catalogue.settings.metricsFile != nil else {
            removeWritten()
            return
        }
        let interval = catalogue.settings.metricsInterval
        let due = lastRender.map { max($0 + interval, loop.now) } ?? loop.now
        // Slack: the file is rewritten with the next timer that wakes the loop anyway.
        timer = loop.schedule(at: due, leeway: .quarterSecond) { [unowned self] in
            self.timer = nil
            self.writeIfChanged()
        }
    }

    private func writeIfChanged() {
        guard let path = catalogue.settings.metricsFile else {
            removeWritten()
            return
        }
        lastRender = loop.now
        let text = PrometheusText.render(snapshot())
        if let written, written.path == path, written.text == text { return }
        do {
            try AtomicFile.replace(path, with: Array(text.utf8))
            if written?.path != path { removeWritten() }
            written = (path, text)
            if lastProblem != nil { log.notice("metrics file \(path) is written again") }
            lastProblem = nil
        } catch {
            let problem = "metrics file: \(error) (create the directory, or fix MetricsFile= in agentd.conf)"
            if problem != lastProblem { log.warning(problem) }
            lastProblem = problem
        }
    }

    /// MetricsFile= was changed or removed: the file written before goes, so that node_exporter does
    /// not export stale figures (or the same series twice) from it.
    private func removeWritten() {
        guard let old = written else { return }
        written = nil
        if FileSystem.remove(old.path) { log.info("metrics file \(old.path) removed (MetricsFile= changed)") }
    }
}
