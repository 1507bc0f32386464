// SPDX-License-Identifier: Apache-2.0
/// A service's `[Service]` section → job keys: its commands, user, environment, working
/// directory, limits and sandbox.
enum ServiceConversion {
    static let copied: Set<String> = [
        "Nice", "IOSchedulingClass", "IOSchedulingPriority", "CPUWeight", "TasksMax", "MemoryMax", "MemoryHigh",
        "Environment", "SuccessExitStatus", "ProtectSystem", "ProtectHome", "PrivateTmp", "ReadWritePaths",
        "ReadOnlyPaths", "InaccessiblePaths", "NoNewPrivileges", "PrivateNetwork", "EnvironmentFile",
    ]
    /// Keys whose `%` is a share of the machine (`MemoryMax=50%`), which agentd reads the same way,
    /// not a specifier.
    static let shareKeys: Set<String> = ["TasksMax", "MemoryMax", "MemoryHigh"]
    /// systemd's older names for the same settings (`MemoryLimit=` is cgroup v1's `MemoryMax=`,
    /// which systemd 252 still reads).
    static let renamed = ["ReadWriteDirectories": "ReadWritePaths", "ReadOnlyDirectories": "ReadOnlyPaths",
                          "InaccessibleDirectories": "InaccessiblePaths", "MemoryLimit": "MemoryMax"]

    static func convert(_ service: UnitFile, into job: inout ConvertedJob, resolve: (String) -> String?,
                        userName: (UInt32) -> String? = { _ in nil }) {
        let entries = service.entries(in: "Service")
        var user = entries.last { $0.key == "User" }.flatMap { $0.value.isEmpty ? nil : $0.value }
        // systemd takes a uid for User=; a job names its user (agentd looks names up).
        if let given = user, let uid = UInt32(given) {
            if let name = userName(uid) {
                user = name
            } else {
                job.notConverted.append("User=\(given) (no user has that uid on this machine: write the user's name)")
            }
        }
        if let dynamic = entries.last(where: { $0.key == "DynamicUser" }), BooleanValue.parse(dynamic.value) == true {
            runsAsDynamicUser(user, entries: entries, job: &job)
        } else {
            // systemd runs a system service without User= as root (issue 26: converted, it ran as nobody).
            job.set("User", user ?? "root")
        }
        let directory = entries.last { $0.key == "WorkingDirectory" }?.value
        job.set("WorkingDirectory", directory.flatMap { $0.isEmpty ? nil : $0 } ?? "/")
        for key in ["ExecStartPre", "ExecStart", "ExecStartPost"] {
            // `apt-helper wait-online` stays a command: it waits for the network at the start, as under
            // systemd, where RequiresNetwork=yes would also end the run when the network goes.
            for entry in entries where entry.key == key {
                if entry.value.isEmpty { continue }
                job.set("Exec", command(entry.value, key: key, job: &job, resolve: resolve))
            }
        }
        // A oneshot service's start is its whole run: its start timeout limits it, RuntimeMaxSec=
        // does nothing. Any other type starts at once (simple, exec) or when it says it is
        // ready: RuntimeMaxSec= limits the run from then on (systemd.service(5)).
        let type = entries.last { $0.key == "Type" }.map { TextBytes.asciiLowercased($0.value.trimmingSpaces) } ?? "simple"
        let oneshot = type == "oneshot"
        var runtime: String?
        for entry in entries {
            switch entry.key {
            case "ExecStartPre", "ExecStart", "ExecStartPost", "Type", "User", "WorkingDirectory", "RemainAfterExit":
                break
            case "DynamicUser" where BooleanValue.parse(entry.value) == true:
                break
            case _ where copied.contains(entry.key) || renamed[entry.key] != nil:
                let key = renamed[entry.key] ?? entry.key
                if shareKeys.contains(key) && MachineShare.isShare(entry.value) {
                    job.set(key, entry.value)
                } else if entry.value.hasSpecifier {
                    job.notConverted.append("\(entry.key)=\(entry.value) (systemd specifiers such as %h have no agentd form)")
                } else if key == "IOSchedulingClass" {
                    convertIOClass(entry.value, job: &job)
                } else if key == "CPUWeight", TextBytes.asciiLowercased(entry.value.trimmingSpaces) == "idle" {
                    job.set("CPUWeight", "1")
                    job.notConverted.append("CPUWeight=idle (the run gets the lowest weight, 1; systemd's idle also "
                        + "gives the CPU to it only when nothing else wants it)")
                } else {
                    // systemd's %% is a literal %, which agentd writes as it is.
                    job.set(key, entry.value.replacingDoublePercent())
                }
            case "Group":
                job.notConverted.append("Group=\(entry.value) (the job runs with its user's groups)")
            case "TimeoutStopSec":
                job.set("GracePeriod", TimerConverter.span(entry.value))
            case "TimeoutStartSec":
                if oneshot { runtime = TimerConverter.span(entry.value) }
            case "RuntimeMaxSec":
                if !oneshot { runtime = TimerConverter.span(entry.value) }
            case "TimeoutSec":
                if oneshot { runtime = TimerConverter.span(entry.value) }
                job.set("GracePeriod", TimerConverter.span(entry.value))
            case "KillMode":
                break
            case _ where switchedOff(entry):
                // `PrivateDevices=no` confines nothing, as agentd does not: nothing is lost.
                break
            default:
                job.notConverted.append("\(entry.key)=\(entry.value) (\(why(entry.key)))")
            }
        }
        // A oneshot service has no start timeout unless it names one: nothing is invented.
        job.set("MaxRuntime", runtime ?? "infinity")
        if let killMode = entries.last(where: { $0.key == "KillMode" }) { sparesChildren(killMode, job: &job) }
    }

    /// systemd's I/O classes by name or number (ioprio_set's IOPRIO_CLASS_*): `best-effort` and
    /// `idle` as they are; `none` is the class the nice level implies, agentd's default too;
    /// `realtime`, which agentd does not give plugins, is named.
    static func convertIOClass(_ value: String, job: inout ConvertedJob) {
        switch TextBytes.asciiLowercased(value.trimmingSpaces) {
        case "2", "best-effort": job.set("IOSchedulingClass", "best-effort")
        case "3", "idle": job.set("IOSchedulingClass", "idle")
        case "0", "none": break
        default:
            job.notConverted.append("IOSchedulingClass=\(value) (agentd gives plugins no realtime I/O class: the job runs "
                + "in the class its nice level implies)")
        }
    }

    /// The sandbox `DynamicUser=yes` implies (systemd.exec(5)) that agentd's job sandbox offers.
    static let dynamicUserSandbox = [("ProtectSystem", "strict"), ("ProtectHome", "read-only"),
                                     ("PrivateTmp", "yes"), ("NoNewPrivileges", "yes")]

    /// `DynamicUser=yes`: systemd runs the service as a user made for it, unprivileged, in the
    /// sandbox that implies. agentd has no such users: the job runs as the service's `User=`
    /// name when it gives one, else as nobody (never as root), in the same sandbox.
    static func runsAsDynamicUser(_ user: String?, entries: [UnitFile.Entry], job: inout ConvertedJob) {
        job.set("User", user ?? "nobody")
        for (key, value) in dynamicUserSandbox where !entries.contains(where: { $0.key == key }) {
            job.set(key, value)
        }
        job.notConverted.append("DynamicUser=yes (agentd makes no user for a run: the job runs as \(user ?? "nobody"), "
            + "in the sandbox DynamicUser= implies, ProtectSystem=strict, ProtectHome=read-only, PrivateTmp=yes and "
            + "NoNewPrivileges=yes; what it writes stays owned by that user)")
    }

    /// `KillMode=process` (apt-daily-upgrade's: a stop reaches unattended-upgrade, never the dpkg it
    /// runs), `mixed` or `none`: agentd's expiry reaches every process of a run, so such a job is
    /// paused, for as long as it takes, where agentd would otherwise expire it for a lost condition.
    static func sparesChildren(_ entry: UnitFile.Entry, job: inout ConvertedJob) {
        guard sparesChildren(killMode: entry.value) else { return }
        pausesInsteadOfExpiring(&job)
        job.notConverted.append("KillMode=\(entry.value) (agentd stops every process of a run; so that a lost condition "
            + "never stops this one midway, it pauses it: OnConditionLost=pause, MaxPause=infinity)")
    }

    /// Whether a stop under `KillMode=value` leaves the main process's children running.
    public static func sparesChildren(killMode value: String) -> Bool {
        ["process", "mixed", "none"].contains(TextBytes.asciiLowercased(value.trimmingSpaces))
    }

    static func pausesInsteadOfExpiring(_ job: inout ConvertedJob) {
        job.set("OnConditionLost", "pause")
        job.set("MaxPause", "infinity")
    }

    /// One `Exec…=` value as an `Exec=` line: `-` kept, the other prefixes named.
    static func command(_ value: String, key: String, job: inout ConvertedJob, resolve: (String) -> String?) -> String {
        var command = value.trimmingSpaces
        var prefixes = ""
        while let first = command.first, "-+!@:|".contains(first) {
            prefixes.append(first)
            command.removeFirst()
        }
        if prefixes.contains("@") {
            // The word after the program is the argv[0] systemd gives it: agentd passes the
            // program's path as argv[0], so the word goes (it would be the first argument).
            command = command.droppingSecondWord()
        }
        if prefixes.contains(":") {
            // systemd expands no variable in such a line; agentd would, so each $ is doubled.
            command = command.replacingDollars()
        }
        var named: Set<Character> = []
        // `!!` is one prefix, named once.
        for prefix in prefixes where prefix != "-" && prefix != ":" && named.insert(prefix).inserted {
            job.notConverted.append("\(key)=\(value.trimmingSpaces.prefix(60)) (its \"\(prefix)\" \(droppedPrefix(prefix)))")
        }
        if command.hasSpecifier {
            job.notConverted.append("\(key)=\(value.trimmingSpaces.prefix(60)) (it holds a systemd specifier such as %h "
                + "or %H that only systemd fills in, at each start; here it is written as it is: put in its value by hand)")
        }
        // systemd's %% is a literal %; agentd's Exec= has no specifiers.
        command = command.replacingDoublePercent()
        return (prefixes.contains("-") ? "-" : "") + absolute(command, resolve: resolve)
    }

    /// What a prefix agentd's `Exec=` has no form for did under systemd, and what is left here.
    static func droppedPrefix(_ prefix: Character) -> String {
        switch prefix {
        case "+", "!":
            return "ran it with full privileges, outside the service's User= and sandbox; here it runs as the job's "
                + "User=, and fails where it needs root: give it a job of its own with User=root, or do once what it does"
        case "@": return "gave it the word after the program as its argv[0]; here argv[0] is the program's path, and that word is left out"
        case "|": return "ran it through the user's shell; here it runs without one"
        default: return "is not expressed"
        }
    }

    static let sandboxPrefixes = ["Protect", "Private", "Restrict", "SystemCall", "MemoryDeny", "LockPersonality",
                                  "Capability", "AmbientCapabilities", "DynamicUser", "UMask", "DevicePolicy",
                                  "DeviceAllow", "IPAddress", "RemoveIPC", "KeyringMode"]

    /// A sandbox switch written out in its off state (`PrivateDevices=no`, `PrivateUsers=false`):
    /// systemd's default, so the job runs unconfined there exactly as here.
    static func switchedOff(_ entry: UnitFile.Entry) -> Bool {
        sandboxPrefixes.contains(where: entry.key.hasPrefix)
            && ["no", "false", "off"].contains(TextBytes.asciiLowercased(entry.value.trimmingSpaces))
    }

    static func why(_ key: String) -> String {
        if sandboxPrefixes.contains(where: key.hasPrefix) {
            return "a systemd sandbox setting agentd's job sandbox does not offer"
        }
        return "[Service] key with no agentd equivalent"
    }

    static func absolute(_ command: String, resolve: (String) -> String?) -> String {
        guard !command.hasPrefix("/") else { return command }
        let end = command.firstIndex(where: { $0 == " " || $0 == "\t" }) ?? command.endIndex
        guard let path = resolve(String(command[..<end])) else { return command }
        return path + command[end...]
    }
}

extension String {
    func replacingDollars() -> String {
        var out = ""
        for character in self { out += character == "$" ? "$$" : String(character) }
        return out
    }

    /// Whether a systemd specifier (`%h`, `%n`…) is in it; `%%` is a literal `%`, not one.
    var hasSpecifier: Bool {
        var found = false
        forEachPercentPart { part in
            if case .specifier = part { found = true }
            if case .danglingPercent = part { found = true }
        }
        return found
    }

    /// The command without its second word (quoted or not) and the blanks before it.
    func droppingSecondWord() -> String {
        let characters = Array(self)
        var index = 0
        func skipWord() {
            while index < characters.count, characters[index] != " ", characters[index] != "\t" {
                if characters[index] == "\"" || characters[index] == "'" {
                    let quote = characters[index]
                    index += 1
                    while index < characters.count, characters[index] != quote {
                        if characters[index] == "\\", quote == "\"" { index += 1 }
                        index += 1
                    }
                }
                index += 1
            }
        }
        func skipBlanks() { while index < characters.count, characters[index] == " " || characters[index] == "\t" { index += 1 } }
        skipWord()
        let programEnd = index
        skipBlanks()
        skipWord()
        return String(characters[..<programEnd]) + String(characters[min(index, characters.count)...])
    }

    /// `%%` as the `%` it stands for; specifiers as written.
    func replacingDoublePercent() -> String {
        var out = ""
        forEachPercentPart { part in
            switch part {
            case .character(let character): out.append(character)
            case .literalPercent, .danglingPercent: out.append("%")
            case .specifier(let character): out += "%" + String(character)
            }
        }
        return out
    }
}
