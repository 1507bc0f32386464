// SPDX-License-Identifier: Apache-2.0
/// What runs a run-parts directory on the machine being converted, and so the environment its
/// scripts ran with: the `/etc/crontab` line that runs `run-parts /etc/cron.hourly`, or, where
/// anacron is installed, the `/etc/anacrontab` line that runs cron.daily, weekly and monthly
/// (Debian's /etc/crontab lines for those start with `test -x /usr/sbin/anacron ||`).
public struct RunPartsRunner: Sendable, Equatable {
    public enum Program: Sendable, Equatable {
        case cron
        case anacron
    }

    /// A crontab or anacrontab: where it is, and its text.
    public struct File: Sendable {
        public var path: String
        public var text: String

        public init(path: String, text: String) {
            self.path = path
            self.text = text
        }
    }

    public var program: Program
    /// `/etc/anacrontab:12`: the line that runs the directory.
    public var source: String
    /// The assignments above that line, over the program's defaults.
    public var environment: CronEnvironment
    /// anacron.service starts anacron only on AC power (Debian's unit says ConditionACPower=true).
    public var onlyOnACPower = false
    /// When anacron.timer starts anacron (its `OnCalendar=` values), besides at boot.
    public var anacronCalendars: [String] = []
    /// anacron.service's `KillMode=` (Debian's: `mixed`, with `KillSignal=SIGUSR1`, on which
    /// anacron waits for its jobs): nil when it names none.
    public var anacronKillMode: String?
    /// When cron runs the directory (the crontab line's time, as `Schedule=`); nil for anacron,
    /// which runs it once a period at the first chance, as `Interval=` does.
    public var cronLine: CronLine?

    public init(program: Program, source: String, environment: CronEnvironment) {
        self.program = program
        self.source = source
        self.environment = environment
    }

    /// anacron runs commands through /bin/sh; PATH is its service's, as agentd's own.
    static let anacronDefaults = CronEnvironment([CronEnvironment.Variable("SHELL", "/bin/sh")])
    /// The setting anacron reads for itself (mail goes through agentd's OnFailure= instead).
    /// Debian's anacron (2.3) reads no other: cronie's `START_HOURS_RANGE`, `RANDOM_DELAY` and
    /// `MAILFROM` reach its jobs as any other assignment, and so they reach the converted jobs.
    static let anacronSettings: Set<String> = ["MAILTO"]

    /// The line of `anacrontab` (given only where anacron is installed), else of `crontab`, that
    /// runs run-parts on a directory of the same name as `directory`; nil when neither has one.
    public static func find(directory: String, crontab: File?, anacrontab: File?) -> RunPartsRunner? {
        guard let name = directory.split(separator: "/").last.map(String.init) else { return nil }
        if let anacrontab, let runner = find(name, in: anacrontab, program: .anacron) { return runner }
        if let crontab, let runner = find(name, in: crontab, program: .cron) { return runner }
        return nil
    }

    static func find(_ name: String, in file: File, program: Program) -> RunPartsRunner? {
        var environment = program == .cron ? CronEnvironment.cron : anacronDefaults
        let ignored: Set<String> = program == .cron ? ["MAILTO"] : anacronSettings
        for (index, line) in file.text.crontabLines.enumerated() {
            let trimmed = String(line).trimmingSpaces
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if let variable = CronLine.environment(trimmed) {
                if !ignored.contains(variable.name) { environment.assign(variable.name, variable.value) }
                continue
            }
            if runsRunParts(on: name, command(of: trimmed, program: program)) {
                var runner = RunPartsRunner(program: program, source: "\(file.path):\(index + 1)", environment: environment)
                if program == .cron, case .success(let cron) = CronLine.parse(trimmed, withUser: true), !cron.atBoot {
                    runner.cronLine = cron
                }
                return runner
            }
        }
        return nil
    }

    /// The command of a crontab line (after the time fields and the user) or an anacrontab line
    /// (after period, delay and identifier); the whole line when it does not parse.
    static func command(of line: String, program: Program) -> String {
        switch program {
        case .cron:
            if case .success(let cron)? = CronLine.parse(line, withUser: true) { return cron.command }
            return line
        case .anacron:
            let fields = line.split(maxSplits: 3, omittingEmptySubsequences: true) { $0 == " " || $0 == "\t" }
            return fields.count == 4 ? String(fields[3]) : line
        }
    }

    /// Whether anacron.service, read as systemd reads it (the unit, then its drop-ins in order:
    /// `EffectiveUnit`), has `ConditionACPower=true`; an empty assignment clears the condition,
    /// as Debian's README.Debian shows for running on battery.
    public static func anacronNeedsACPower(unitTexts: [String]) -> Bool {
        let condition = EffectiveUnit.merge(texts: unitTexts, path: "anacron.service").entries(in: "Unit").last { $0.key == "ConditionACPower" }
        return condition.flatMap { BooleanValue.parse($0.value) } ?? false
    }

    /// anacron.service's last `KillMode=`, read as systemd reads it (the unit, then its drop-ins).
    public static func anacronKillMode(unitTexts: [String]) -> String? {
        EffectiveUnit.merge(texts: unitTexts, path: "anacron.service").entries(in: "Service").last { $0.key == "KillMode" }?.value
    }

    /// anacron.timer's calendars, read as systemd reads it (the unit, then its drop-ins).
    public static func anacronCalendars(timerTexts: [String]) -> [String] {
        EffectiveUnit.merge(texts: timerTexts, path: "anacron.timer").entries(in: "Timer").filter { $0.key == "OnCalendar" }.map(\.value)
    }

    /// `cd / && run-parts --report /etc/cron.daily; }` runs run-parts on `cron.daily`.
    static func runsRunParts(on name: String, _ command: String) -> Bool {
        let words = command.split { $0 == " " || $0 == "\t" }.map { word in
            String(word).trimmingCharacters(in: ";}&|)'\"")
        }
        guard words.contains(where: { $0 == "run-parts" || $0.hasSuffix("/run-parts") }) else { return false }
        return words.contains { $0.split(separator: "/").last.map(String.init) == name }
    }
}

private extension String {
    func trimmingCharacters(in characters: String) -> String {
        var result = Substring(self)
        while let last = result.last, characters.contains(last) { result.removeLast() }
        while let first = result.first, characters.contains(first) { result.removeFirst() }
        return String(result)
    }
}
