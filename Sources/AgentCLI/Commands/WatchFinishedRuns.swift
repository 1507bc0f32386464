// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

/// The runs `agentctl watch` saw end, kept on screen for a while with their result (issue 29):
/// a run that ends between two frames does not vanish before anyone read how it went.
///
/// Fed by the event stream (`run-ended` carries the stop reason and the run's last `STATUS=` and
/// `RESULT=`) and by each status report (the titles of live runs, which `run-ended` does not
/// repeat). Shown for ``keptSeconds`` after the end, at most ``keptCount`` of them, newest first.
/// Runs that ended before the view opened are `history`'s.
public struct WatchFinishedRuns: Sendable {
    public static let keptSeconds: Int64 = 60
    public static let keptCount = 5

    /// One finished run as the view shows it.
    public struct Run: Sendable, Equatable {
        public var identifier: String
        public var runID: String
        public var stopReason: String
        /// Unix milliseconds (the event's time).
        public var endedAt: Int64
        public var title: String?
        public var status: String?
        public var result: String?

        public init(identifier: String, runID: String, stopReason: String, endedAt: Int64,
                    title: String? = nil, status: String? = nil, result: String? = nil) {
            self.identifier = identifier
            self.runID = runID
            self.stopReason = stopReason
            self.endedAt = endedAt
            self.title = title
            self.status = status
            self.result = result
        }

        /// Whether the run did not succeed (its line is drawn as an error).
        public var failed: Bool { stopReason != "success" && stopReason != "cancelled" }
    }

    /// Newest first, at most `keptCount`.
    public private(set) var runs: [Run] = []
    /// The last title each live run showed, by run id (only live runs are kept).
    private var titles: [String: String] = [:]

    public init() {}

    /// A status report: remembers the titles of the live runs.
    public mutating func noteRunning(_ running: [RunSummary]) {
        var titles: [String: String] = [:]
        for run in running { titles[run.runID] = run.title ?? self.titles[run.runID] }
        self.titles = titles
    }

    /// An event from the stream; only `run-ended` (and a title change) matter.
    public mutating func note(_ event: AgentEvent) {
        guard let runID = event.runID else { return }
        switch event.eventKind {
        case .runTitle?, .runStarted?:
            if let title = event.title { titles[runID] = title }
        case .runEnded?:
            let run = Run(identifier: event.identifier ?? "-", runID: runID, stopReason: event.stopReason?.description ?? "ended",
                          endedAt: event.time, title: titles.removeValue(forKey: runID),
                          status: event.status, result: event.result)
            runs.removeAll { $0.runID == runID }
            runs.insert(run, at: 0)
            if runs.count > Self.keptCount { runs.removeLast(runs.count - Self.keptCount) }
        default:
            break
        }
    }

    /// The runs still shown at `nowMilliseconds`.
    public func visible(at nowMilliseconds: Int64) -> [Run] {
        runs.filter { nowMilliseconds - $0.endedAt < Self.keptSeconds * 1000 }
    }
}
