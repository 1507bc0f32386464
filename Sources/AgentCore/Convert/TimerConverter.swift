// SPDX-License-Identifier: Apache-2.0
/// A systemd `.timer` and its `.service` → one job file that runs as the service did (DESIGN §3,
/// issue 26): its user (root when it names none), command list, environment, working
/// directory, conditions, sandbox and limits — none invented. What has no agentd form is
/// listed in the file as not expressed.
public enum TimerConverter {
    /// - Parameters:
    ///   - resolve: an absolute path for a bare command name (`systemd-tmpfiles`), as systemd
    ///     finds it; nil leaves it as it is (and `agentctl check` will say so).
    ///   - userName: the name of a numeric `User=` (systemd takes a uid too); nil when there is none.
    public static func convert(timer: UnitFile, service: UnitFile, name: String, sources: [String],
                               prefix: String = "local", resolve: (String) -> String? = { _ in nil },
                               userName: (UInt32) -> String? = { _ in nil }) -> ConvertedJob {
        let base = JobName.sanitized(name)
        var job = ConvertedJob(fileName: base + ".job", sources: sources,
                               description: service.entries(in: "Unit").last { $0.key == "Description" }?.value
                                   ?? timer.entries(in: "Unit").last { $0.key == "Description" }?.value)
        job.set("Identifier", "\(prefix).\(base)")
        job.set("Kind", "processing")
        ServiceConversion.convert(service, into: &job, resolve: resolve, userName: userName)
        convertTimer(timer, into: &job)
        UnitSectionConversion.convert(timer, into: &job, isTimer: true)
        UnitSectionConversion.convert(service, into: &job, isTimer: false)
        job.goesOnAsTheOriginalDid()
        return job
    }

    /// ``convert(timer:service:name:sources:prefix:resolve:userName:)``, and for each calendar after
    /// the first (agentd takes one `Schedule=` per job) a copy of the job with that calendar,
    /// `NAME-2.job` and on: systemd starts the service at each, and a calendar left out would be
    /// lost once the timer is disabled.
    public static func convertAll(timer: UnitFile, service: UnitFile, name: String, sources: [String],
                                  prefix: String = "local", resolve: (String) -> String? = { _ in nil },
                                  userName: (UInt32) -> String? = { _ in nil }) -> [ConvertedJob] {
        var job = convert(timer: timer, service: service, name: name, sources: sources, prefix: prefix,
                          resolve: resolve, userName: userName)
        let more = job.moreCalendars
        guard !more.isEmpty else { return [job] }
        let base = JobName.sanitized(name)
        let names = more.indices.map { "\(base)-\($0 + 2)" }
        job.notes.append("the timer's \(more.count + 1) calendars are a job each, as a job has one Schedule= ("
            + ([base] + names).map { $0 + ".job" }.joined(separator: ", ")
            + "): systemd never ran the service twice at once, and these jobs may overlap if a run lasts into another's slot")
        var jobs = [job]
        for (calendar, copyName) in zip(more, names) {
            var copy = job
            copy.fileName = copyName + ".job"
            copy.keys = job.keys.map { entry in
                switch entry.key {
                case "Identifier": ("Identifier", "\(prefix).\(copyName)")
                case "Schedule": ("Schedule", calendar)
                default: entry
                }
            }
            jobs.append(copy)
        }
        return jobs
    }

    /// Why a timer's `Unit=` cannot be converted (it starts a target, a path unit…), or nil.
    public static func unitProblem(_ timer: UnitFile, path: String) -> String? {
        guard let unit = timer.entries(in: "Timer").last(where: { $0.key == "Unit" })?.value,
              !unit.hasSuffix(".service") else { return nil }
        return "\(path): Unit=\(unit) is not a service, and agentd runs commands, not units; "
            + "convert the timers of the services it pulls in instead"
    }

    private static func convertTimer(_ timer: UnitFile, into job: inout ConvertedJob) {
        var persistent = false
        let entries = timer.entries(in: "Timer")
        // systemd starts the service at whichever trigger elapses first; Schedule= and Interval=
        // must both hold: a calendar's company of spans since the last start cannot be kept.
        let hasCalendar = entries.contains { $0.key == "OnCalendar" }
        var interval: String?, boot: String?
        for entry in entries {
            switch entry.key {
            case "OnCalendar":
                if case .failure(let error) = CalendarEventParser.parse(entry.value) {
                    job.notConverted.append("OnCalendar=\(entry.value) (agentd cannot read it: \(error.message); write a Schedule= by hand)")
                } else if job.keys.contains(where: { $0.key == "Schedule" }) {
                    job.moreCalendars.append(entry.value)
                } else {
                    job.set("Schedule", entry.value)
                }
            case "RandomizedDelaySec":
                job.set("RandomizedDelay", span(entry.value))
            case "Persistent":
                persistent = BooleanValue.parse(entry.value) ?? false
            case "OnUnitActiveSec", "OnUnitInactiveSec":
                if hasCalendar {
                    job.notConverted.append("\(entry.key)=\(entry.value) (systemd also starts the service that long after "
                        + "it last started or stopped, whichever trigger comes first; beside Schedule=, Interval= would have to "
                        + "hold too: make a second job with Interval=\(span(entry.value)))")
                } else if let first = interval {
                    job.notConverted.append("\(entry.key)=\(entry.value) (a second span trigger; agentd takes one "
                        + "Interval= per job, here \(first): make a second job)")
                } else {
                    interval = span(entry.value)
                    job.set("Interval", span(entry.value))
                    if entry.key == "OnUnitInactiveSec" {
                        job.notes.append("OnUnitInactiveSec= counted from the service's end, Interval= counts from a run's "
                            + "start: a run that lasts a while starts the next that much sooner")
                    }
                }
            case "OnBootSec", "OnStartupSec":
                if let first = boot {
                    job.notConverted.append("\(entry.key)=\(entry.value) (a second boot trigger; agentd takes one "
                        + "AfterBoot= per job, here \(first))")
                } else {
                    boot = span(entry.value)
                    job.set("AfterBoot", span(entry.value))
                }
            case "WakeSystem":
                if BooleanValue.parse(entry.value) == true { job.set("WakeSystem", "yes") }
            case "AccuracySec":
                job.notConverted.append("AccuracySec=\(entry.value) (agentd picks the moment within the policy)")
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

    /// A systemd span (`60` is seconds) in agentd's form; `infinity` stays.
    static func span(_ value: String) -> String {
        if TextBytes.asciiLowercased(value) == "infinity" { return "infinity" }
        return TimeSpan.parse(value).map(TimeSpan.format) ?? value
    }
}
