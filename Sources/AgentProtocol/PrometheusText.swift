// SPDX-License-Identifier: Apache-2.0
/// Renders a ``MetricsSnapshot`` in the Prometheus text exposition format 0.0.4 (`agentctl
/// metrics`, `MetricsFile=`): `agentd_` prefix, units in the names, HELP and TYPE for every family.
/// The output depends on the snapshot only (no clock), so an unchanged snapshot renders to the
/// same bytes and the metrics file is not rewritten.
public enum PrometheusText {
    public static func render(_ snapshot: MetricsSnapshot) -> String {
        var out = Writer()
        agent(snapshot, &out)
        runs(snapshot, &out)
        jobs(snapshot, &out)
        budgets(snapshot, &out)
        if let conditions = snapshot.conditions { self.conditions(conditions, &out) }
        return out.text
    }

    private static func agent(_ s: MetricsSnapshot, _ out: inout Writer) {
        out.family("agentd_build_info", .gauge, "The agent's version; always 1.")
        out.sample("agentd_build_info", [("version", s.version)], 1)
        out.family("agentd_start_time_seconds", .gauge, "When the agent started, in seconds since the epoch.")
        out.sample("agentd_start_time_seconds", [], Double(s.startedAt))
        out.family("agentd_jobs", .gauge, "Registered jobs.")
        out.sample("agentd_jobs", [], Double(s.jobCount))
        out.family("agentd_config_errors", .gauge, "Config errors in force (agentctl status lists them).")
        out.sample("agentd_config_errors", [], Double(s.configErrorCount))
        out.family("agentd_paused", .gauge, "1 while agentctl pause holds discretionary work.")
        out.sample("agentd_paused", [], s.paused ? 1 : 0)
        out.family("agentd_state_writable", .gauge, "1 while the state database is usable.")
        out.sample("agentd_state_writable", [], s.stateWritable ? 1 : 0)
    }

    private static func runs(_ s: MetricsSnapshot, _ out: inout Writer) {
        out.family("agentd_runs_running", .gauge, "Live runs, by kind.")
        for entry in s.running { out.sample("agentd_runs_running", [("kind", entry.kind.rawValue)], Double(entry.runCount)) }
        out.family("agentd_runs_pending", .gauge, "Work waiting to start, by kind.")
        for entry in s.pending { out.sample("agentd_runs_pending", [("kind", entry.kind.rawValue)], Double(entry.runCount)) }
        out.family("agentd_runs_ended_total", .counter,
                   "Runs ended since the agent started, by job and stop-reason kind.")
        for entry in s.runsEnded {
            out.sample("agentd_runs_ended_total", [("identifier", entry.identifier), ("stop_reason", entry.stopReasonLabel)],
                       Double(entry.runCount))
        }
        out.family("agentd_run_duration_seconds", .histogram, "Run durations since the agent started, by kind.")
        for histogram in s.durations {
            let kind = ("kind", histogram.kind.rawValue)
            for bucket in histogram.buckets {
                out.sample("agentd_run_duration_seconds_bucket", [kind, ("le", number(bucket.upperBoundSeconds))],
                           Double(bucket.runCount))
            }
            out.sample("agentd_run_duration_seconds_bucket", [kind, ("le", "+Inf")], Double(histogram.runCount))
            out.sample("agentd_run_duration_seconds_sum", [kind], histogram.sumSeconds)
            out.sample("agentd_run_duration_seconds_count", [kind], Double(histogram.runCount))
        }
    }

    private static func jobs(_ s: MetricsSnapshot, _ out: inout Writer) {
        out.family("agentd_job_last_success_timestamp_seconds", .gauge,
                   "When the job's last successful run ended, in seconds since the epoch (absent: none on record).")
        for job in s.jobs {
            guard let last = job.lastSuccessAt else { continue }
            out.sample("agentd_job_last_success_timestamp_seconds", [("identifier", job.identifier), ("kind", job.kind.rawValue)],
                       Double(last) / 1000)
        }
        out.family("agentd_job_run_rate_ratio", .gauge,
                   "Run-rate: share of the last 7 days with a success within 24 h of the previous one (agentctl stats, FRESH DAYS).")
        for job in s.jobs {
            out.sample("agentd_job_run_rate_ratio", [("identifier", job.identifier), ("kind", job.kind.rawValue)], job.freshDayShare)
        }
    }

    private static func budgets(_ s: MetricsSnapshot, _ out: inout Writer) {
        out.family("agentd_budget_launches", .gauge, "Discretionary launches a day, per budget.")
        for b in s.budgets { out.sample("agentd_budget_launches", [("manifest", b.manifest)], b.isUnlimited ? .infinity : Double(b.dailyLaunchCount)) }
        out.family("agentd_budget_launches_spent", .gauge, "Discretionary launches spent today, per budget.")
        for b in s.budgets { out.sample("agentd_budget_launches_spent", [("manifest", b.manifest)], Double(b.spentLaunchCount)) }
        out.family("agentd_budget_launches_left", .gauge, "Discretionary launches left today, per budget.")
        for b in s.budgets { out.sample("agentd_budget_launches_left", [("manifest", b.manifest)], b.isUnlimited ? .infinity : Double(b.leftLaunchCount)) }
    }

    static let thermalStates = ["nominal", "fair", "serious", "critical"]

    private static func conditions(_ c: ConditionFigures, _ out: inout Writer) {
        out.family("agentd_external_power", .gauge, "1 on external power, 0 on battery.")
        out.sample("agentd_external_power", [], c.externalPower ? 1 : 0)
        if let percent = c.batteryPercent {
            out.family("agentd_battery_percent", .gauge, "Combined battery level, in percent.")
            out.sample("agentd_battery_percent", [], Double(percent))
        }
        out.family("agentd_thermal_state", .gauge, "1 for the thermal state in force, 0 for the others.")
        for state in thermalStates {
            out.sample("agentd_thermal_state", [("state", state)], state == c.thermal ? 1 : 0)
        }
        out.family("agentd_low_power", .gauge, "1 while low-power mode is on.")
        out.sample("agentd_low_power", [], c.lowPower ? 1 : 0)
        out.family("agentd_network_up", .gauge, "1 while a default route exists.")
        out.sample("agentd_network_up", [], c.network ? 1 : 0)
        out.family("agentd_network_metered", .gauge,
                   "1 while the network counts as metered (NetworkManager's Metered is yes or guess-yes).")
        out.sample("agentd_network_metered", [], c.metered ? 1 : 0)
        out.family("agentd_memory_pressure", .gauge, "1 while memory pressure holds discretionary work.")
        out.sample("agentd_memory_pressure", [], c.memoryPressure ? 1 : 0)
    }

    /// A sample value or bound as Prometheus reads it: integers without a fraction.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// A label value with `\`, `"` and newlines escaped.
    static func escaped(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == 0x5C || $0 == 0x22 || $0 == 0x0A }) else { return value }
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    enum MetricType: String { case counter, gauge, histogram }

    struct Writer {
        var text = ""

        mutating func family(_ name: String, _ type: MetricType, _ help: String) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type.rawValue)\n"
        }

        mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Double) {
            text += name
            if !labels.isEmpty {
                text += "{" + labels.map { "\($0.0)=\"\(PrometheusText.escaped($0.1))\"" }.joined(separator: ",") + "}"
            }
            text += " \(PrometheusText.number(value))\n"
        }
    }
}
