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
    /// Why `MetricsFile=` is not being written, for `agentctl status`; nil while it is.
    var problem: String? { lastProblem }

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
        if written?.path != path, !Self.mayReplace(path) {
            report(Self.notOurs(path))
            return
        }
        do {
            try AtomicFile.replace(path, with: Array(text.utf8))
            if written?.path != path { removeWritten() }
            written = (path, text)
            if lastProblem != nil { log.notice("metrics file \(path) is written again") }
            lastProblem = nil
        } catch {
            report("metrics file: \(error) (create the directory, or fix MetricsFile= in agentd.conf)")
        }
    }

    private func report(_ problem: String) {
        if problem != lastProblem { log.warning(problem) }
        lastProblem = problem
    }

    /// How every file this writer makes begins: a file that does not is not the agent's to
    /// replace or remove.
    static let signature = Array("# HELP agentd_build_info ".utf8)

    /// Whether `path` may be replaced: only a missing file, or a regular file of the agent's own
    /// that holds its metrics (MetricsFile=/etc/passwd once replaced that file, and removing the
    /// setting deleted it).
    static func mayReplace(_ path: String) -> Bool {
        switch FileSystem.entry(at: path) {
        case .missing: true
        case .directory, .symbolicLink: false
        case .other: isMetricsFile(path)
        }
    }

    /// What is logged (and shown in `status`) when `path` may not be replaced.
    static func notOurs(_ path: String) -> String {
        "metrics file: \(path) exists and is not a metrics file agentd wrote; agentd neither replaces "
            + "nor removes it: remove it yourself if it is stale, or set MetricsFile= in agentd.conf to a new path"
    }

    /// A regular file owned by the agent's user that begins as the agent's metrics do.
    static func isMetricsFile(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else { return false }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: signature.count)
        return read(fd, &head, head.count) == head.count && head == signature
    }

    /// MetricsFile= was changed or removed: the file written before goes, so that node_exporter does
    /// not export stale figures (or the same series twice) from it.
    private func removeWritten() {
        lastProblem = nil
        guard let old = written else { return }
        written = nil
        // Only what is still the agent's: someone may have put another file there since.
        if Self.isMetricsFile(old.path), FileSystem.remove(old.path) { log.info("metrics file \(old.path) removed (MetricsFile= changed)") }
    }
}
