// SPDX-License-Identifier: Apache-2.0
/// The run-rate a fleet watches (`agentctl stats` "fresh days", the `agentd_job_run_rate_ratio`
/// metric): the share of the last 7 days with a successful run within 24 h of the previous success.
/// A job younger than the window is judged on the days it has existed (since its first run): one
/// installed this morning and succeeding every hour is fresh, not 1 day in 7.
public enum FreshDays {
    public static let windowSeconds: Int64 = 7 * 86_400
    /// Successes this far back matter: the window, plus the day before it for the first gap.
    public static let lookbackSeconds: Int64 = windowSeconds + 86_400

    /// `successStarts`: Unix seconds when each successful run started, ascending; `firstRun`: when
    /// the job's first run started, nil when unknown (the whole window counts); `now` in Unix
    /// seconds.
    public static func share(successStarts: [Int64], firstRun: Int64? = nil, now: Int64) -> Double {
        let windowStart = now - windowSeconds
        var days = Set<Int64>()
        for (index, time) in successStarts.enumerated() where index > 0 && time >= windowStart {
            if time - successStarts[index - 1] <= 86_400 { days.insert((now - time) / 86_400) }
        }
        return Double(days.count) / Double(observedDays(since: firstRun, now: now))
    }

    /// Days of the window (numbered back from now, 86,400 s each) that reach past the first run:
    /// only those can hold a success after it. 1 to 7.
    static func observedDays(since firstRun: Int64?, now: Int64) -> Int64 {
        guard let firstRun else { return 7 }
        let age = max(0, now - firstRun)
        return min(7, max(1, (age + 86_399) / 86_400))
    }
}
