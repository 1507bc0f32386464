// SPDX-License-Identifier: Apache-2.0
/// The run-rate a fleet watches (`agentctl stats` "fresh days", the `agentd_job_run_rate_ratio`
/// metric): the share of the last 7 days with a successful run within 24 h of the previous success.
public enum FreshDays {
    public static let windowSeconds: Int64 = 7 * 86_400
    /// Successes this far back matter: the window, plus the day before it for the first gap.
    public static let lookbackSeconds: Int64 = windowSeconds + 86_400

    /// `successStarts`: Unix seconds when each successful run started, ascending; `now` in Unix seconds.
    public static func share(successStarts: [Int64], now: Int64) -> Double {
        let windowStart = now - windowSeconds
        var days = Set<Int64>()
        for (index, time) in successStarts.enumerated() where index > 0 && time >= windowStart {
            if time - successStarts[index - 1] <= 86_400 { days.insert((now - time) / 86_400) }
        }
        return Double(days.count) / 7
    }
}
