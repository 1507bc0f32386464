// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol

/// The counters the metrics need and the store does not keep: runs ended per job and stop-reason
/// kind, and run durations per kind. They count from 0 when the agent starts (Prometheus'
/// `rate()` and `increase()` take a counter reset in their stride); the last success and the
/// fresh-days figure come from the store and survive restarts.
struct RunMetrics {
    /// Upper bounds of the duration buckets, in seconds: refresh runs take seconds, processing
    /// minutes, continued work hours.
    static let bucketBounds: [Double] = [1, 5, 15, 30, 60, 300, 600, 1800, 3600, 3 * 3600, 12 * 3600]

    struct EndedKey: Hashable {
        var identifier: Identifier
        var stopReason: String
    }

    private(set) var ended: [EndedKey: Int] = [:]
    private var histograms: [JobKind: Histogram] = [:]

    /// `job` is the job's identifier (not a submission's dynamic one), so the labels stay bounded.
    mutating func runEnded(job: Identifier, kind: JobKind, stop: StopReason, seconds: Double) {
        ended[EndedKey(identifier: job, stopReason: stop.kindLabel), default: 0] += 1
        histograms[kind, default: Histogram()].add(max(0, seconds))
    }

    /// Counts of the jobs `exists` keeps, sorted by identifier then stop reason.
    func runsEnded(where exists: (Identifier) -> Bool) -> [RunsEnded] {
        ended.filter { exists($0.key.identifier) }
            .map { RunsEnded(identifier: $0.key.identifier.rawValue, stopReasonLabel: $0.key.stopReason, runCount: $0.value) }
            .sorted { ($0.identifier, $0.stopReasonLabel) < ($1.identifier, $1.stopReasonLabel) }
    }

    /// One histogram per kind, every kind listed.
    var durations: [DurationHistogram] {
        JobKind.allCases.map { kind in
            let histogram = histograms[kind] ?? Histogram()
            let buckets = zip(Self.bucketBounds, histogram.cumulative).map {
                DurationBucket(upperBoundSeconds: $0, runCount: $1)
            }
            return DurationHistogram(kind: kind, buckets: buckets, runCount: histogram.count,
                                     sumSeconds: histogram.sum)
        }
    }

    struct Histogram {
        var perBucket = [Int](repeating: 0, count: RunMetrics.bucketBounds.count)
        var count = 0
        var sum = 0.0

        mutating func add(_ seconds: Double) {
            count += 1
            sum += seconds
            if let index = RunMetrics.bucketBounds.firstIndex(where: { seconds <= $0 }) { perBucket[index] += 1 }
        }

        var cumulative: [Int] {
            var total = 0
            return perBucket.map { total += $0; return total }
        }
    }
}
