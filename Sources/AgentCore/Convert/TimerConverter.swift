// SPDX-License-Identifier: Apache-2.0
/// A systemd `.timer` and its `.service` → one job file: the timer's calendar, delay and
/// catch-up; the service's command, user, priorities and power/network needs. Everything else
/// is listed in the file as not expressed.
public enum TimerConverter {
    /// - Parameter resolve: an absolute path for a bare command name (`systemd-tmpfiles`), as
    ///   systemd finds it; nil leaves it as it is (and `agentctl check` will say so).
    public static func convert(timer: UnitFile, service: UnitFile, name: String, sources: [String],
                               prefix: String = "local", resolve: (String) -> String? = { _ in nil }) -> ConvertedJob {
        let base = JobName.sanitized(name)
        var job = ConvertedJob(fileName: base + ".job", sources: sources,
                               description: service.entries(in: "Unit").last { $0.key == "Description" }?.value
                                   ?? timer.entries(in: "Unit").last { $0.key == "Description" }?.value)
        job.set("Identifier", "\(prefix).\(base)")
        job.set("Kind", "processing")
        var context = Context()
        convertService(service, into: &job, context: &context, resolve: resolve)
        convertTimer(timer, into: &job)
        convertUnit(service, into: &job, context: &context)
        if context.needsNetwork { job.set("RequiresNetwork", "yes") }
        if !job.keys.contains(where: { $0.key == "MaxRuntime" }) {
            // systemd gives oneshot services no time limit; agentd's processing default is 10 min.
            job.set("MaxRuntime", "1h")
        }
        return job
    }

    struct Context {
        var needsNetwork = false
    }

    static let networkTargets: Set<String> = ["network-online.target", "network.target"]

    private static func convertTimer(_ timer: UnitFile, into job: inout ConvertedJob) {
        var persistent = false
        for entry in timer.entries(in: "Timer") {
            switch entry.key {
            case "OnCalendar":
                if job.keys.contains(where: { $0.key == "Schedule" }) {
                    job.notConverted.append("OnCalendar=\(entry.value) (a second calendar; agentd takes one Schedule= per job: make a second job)")
                } else {
                    job.set("Schedule", entry.value)
                }
            case "RandomizedDelaySec":
                job.set("RandomizedDelay", span(entry.value))
            case "Persistent":
                persistent = BooleanValue.parse(entry.value) ?? false
            case "OnUnitActiveSec", "OnUnitInactiveSec":
                job.set("Interval", span(entry.value))
            case "AccuracySec":
                job.notConverted.append("AccuracySec=\(entry.value) (agentd picks the moment within the policy)")
            case "OnBootSec", "OnStartupSec":
                job.notConverted.append("\(entry.key)=\(entry.value) (agentd has no boot-relative trigger; a new job runs at its first slot)")
            case "FixedRandomDelay":
                job.notes.append("RandomizedDelay= is always fixed per machine in agentd (FixedRandomDelay=yes)")
            case "Unit":
                break
            default:
                job.notConverted.append("\(entry.key)=\(entry.value) ([Timer])")
            }
        }
        if job.keys.contains(where: { $0.key == "Schedule" }) {
            job.set("CatchUp", persistent ? "yes" : "no")
        }
    }

    private static func convertService(_ service: UnitFile, into job: inout ConvertedJob, context: inout Context,
                                       resolve: (String) -> String?) {
        let starts = service.entries(in: "Service").filter { $0.key == "ExecStart" }
        for (index, entry) in starts.enumerated() {
            var command = entry.value.trimmingSpaces
            // systemd's prefixes: - (ignore failure), + ! !! (privileges), @ (argv0), : (no expansion).
            var stripped = ""
            while let first = command.first, "-+!@:|".contains(first) {
                stripped.append(first)
                command.removeFirst()
            }
            if index == starts.count - 1 {
                job.set("Exec", absolute(command, resolve: resolve))
                if !stripped.isEmpty { job.notes.append("ExecStart= prefix \"\(stripped)\" dropped") }
            } else {
                job.notConverted.append("ExecStart=\(entry.value) (agentd runs one command; put the commands in one script)")
            }
        }
        for entry in service.entries(in: "Service") {
            switch entry.key {
            case "ExecStart", "Type":
                break
            case "User", "Nice", "IOSchedulingClass", "IOSchedulingPriority", "CPUWeight", "TasksMax", "MemoryMax", "MemoryHigh":
                job.set(entry.key, entry.value)
            case "Environment":
                job.set("Environment", entry.value)
            case "TimeoutStopSec":
                job.set("GracePeriod", span(entry.value))
            case "RuntimeMaxSec":
                job.set("MaxRuntime", span(entry.value))
            case "ExecStartPre" where entry.value.contains("wait-online"):
                context.needsNetwork = true
                job.notConverted.append("ExecStartPre=\(entry.value) (RequiresNetwork=yes waits for a default route instead)")
            default:
                job.notConverted.append("\(entry.key)=\(entry.value) (\(why(entry.key, section: "Service")))")
            }
        }
    }

    private static func convertUnit(_ service: UnitFile, into job: inout ConvertedJob, context: inout Context) {
        for entry in service.entries(in: "Unit") {
            switch entry.key {
            case "Description", "Documentation":
                break
            case "ConditionACPower" where BooleanValue.parse(entry.value) == true:
                job.set("RequiresExternalPower", "yes")
                job.notes.append("ConditionACPower=true skips the run on battery; RequiresExternalPower=yes waits for AC instead")
            case "After", "Wants", "Requires":
                let units = entry.value.split(separator: " ").map(String.init)
                if units.contains(where: networkTargets.contains) || units.contains(where: { $0.hasPrefix("NetworkManager") }) {
                    context.needsNetwork = true
                }
                let others = units.filter { !networkTargets.contains($0) && !$0.hasSuffix(".timer") }
                if !others.isEmpty {
                    job.notConverted.append("\(entry.key)=\(others.joined(separator: " ")) (ordering against other units)")
                }
            default:
                job.notConverted.append("\(entry.key)=\(entry.value) (\(why(entry.key, section: "Unit")))")
            }
        }
    }

    static let sandboxPrefixes = ["Protect", "Private", "Restrict", "SystemCall", "MemoryDeny", "LockPersonality",
                                  "NoNewPrivileges", "Capability", "AmbientCapabilities", "ReadOnly", "ReadWrite",
                                  "Inaccessible", "DynamicUser", "UMask", "DevicePolicy", "DeviceAllow", "IPAddress"]

    /// Why a key has no agentd form, in a few words.
    static func why(_ key: String, section: String) -> String {
        if sandboxPrefixes.contains(where: key.hasPrefix) {
            return "sandboxing: agentd runs plugins without systemd's sandbox; keep the service if it matters"
        }
        if key.hasPrefix("Condition") || key.hasPrefix("Assert") {
            return "a start condition agentd does not check"
        }
        return "[\(section)] key with no agentd equivalent"
    }

    /// A systemd span (`60` is seconds) in agentd's form.
    static func span(_ value: String) -> String {
        TimeSpan.parse(value).map(TimeSpan.format) ?? value
    }

    private static func absolute(_ command: String, resolve: (String) -> String?) -> String {
        guard !command.hasPrefix("/"), let end = command.firstIndex(where: { $0 == " " || $0 == "\t" }) ?? Optional(command.endIndex),
              let path = resolve(String(command[..<end])) else { return command }
        return path + command[end...]
    }
}
