// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

/// What the per-job metrics need from the history, kept in memory: each identifier's last success,
/// its first run's start and the start times of its successes of the last 8 days
/// (``FreshDays/lookbackSeconds``). Read
/// from the store once, then kept up to date as runs end, so a metrics render costs no query however
/// long the history is.
struct SuccessHistory {
    private(set) var isSeeded = false
    /// Unix milliseconds of the last success's end (as `job_facts` keeps it).
    private var lastSuccess: [String: Int64] = [:]
    /// Unix seconds of successful runs' starts, ascending.
    private var starts: [String: [Int64]] = [:]
    /// Unix seconds of each identifier's first run's start.
    private var firstRun: [String: Int64] = [:]

    /// `lastSuccesses` and `firstRuns` in milliseconds, `successStarts` in milliseconds and ascending
    /// (the store's forms).
    mutating func seed(lastSuccesses: [String: Int64], successStarts: [String: [Int64]],
                       firstRuns: [String: Int64] = [:]) {
        lastSuccess.merge(lastSuccesses) { _, stored in stored }
        for (identifier, time) in firstRuns { firstRun[identifier] = min(time / 1000, firstRun[identifier] ?? .max) }
        for (identifier, times) in successStarts {
            starts[identifier] = (times.map { $0 / 1000 } + (starts[identifier] ?? [])).sorted()
        }
        isSeeded = true
    }

    /// A run ended, whatever its result: the first of an identifier new since the seed is its
    /// first run. Before the seed it is left to the store, which the seed reads.
    mutating func recordRun(_ identifier: String, startedAtMs: Int64) {
        guard isSeeded else { return }
        firstRun[identifier] = min(startedAtMs / 1000, firstRun[identifier] ?? .max)
    }

    /// A successful run ended. Before the seed it is left to the store, which the seed reads.
    mutating func recordSuccess(_ identifier: String, startedAtMs: Int64, endedAtMs: Int64) {
        guard isSeeded else { return }
        // As job_facts records it: the newest end, even after the clock stepped back.
        lastSuccess[identifier] = endedAtMs
        let start = startedAtMs / 1000
        var times = starts[identifier] ?? []
        // Runs end in any order; keep the starts sorted, and drop what has left the lookback.
        let index = times.lastIndex { $0 <= start }.map { $0 + 1 } ?? 0
        times.insert(start, at: index)
        if let first = times.first, first < start - FreshDays.lookbackSeconds {
            times.removeAll { $0 < start - FreshDays.lookbackSeconds }
        }
        starts[identifier] = times
    }

    /// Unix milliseconds of the last success's end, nil when there is none.
    func lastSuccess(of identifier: String) -> Int64? {
        lastSuccess[identifier]
    }

    /// The `agentctl stats` fresh-days share at `now` (Unix seconds).
    func runRate(of identifier: String, now: Int64) -> Double {
        let recent = (starts[identifier] ?? []).drop { $0 < now - FreshDays.lookbackSeconds }
        return FreshDays.share(successStarts: Array(recent), firstRun: firstRun[identifier], now: now)
    }
}
