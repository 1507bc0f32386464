// SPDX-License-Identifier: Apache-2.0
/// A unit as systemd reads it: the unit file, then its drop-ins (`NAME.d/*.conf`) in order, each
/// assignment applied as systemd.unit(5) says. A setting that takes a list (`OnCalendar=`,
/// `ExecStart=`, `Environment=`…) grows with each assignment and is emptied by an empty one (an
/// empty `Condition…=` empties every condition, and an empty `Assert…=` every assertion); any
/// other setting is its last assignment, and an empty one puts back its default. What comes out
/// holds only the assignments still in force, in order, so that the converters read it as if the
/// administrator had written one file (`systemctl edit apt-daily.timer` is the common case).
public enum EffectiveUnit {
    public static func merge(_ unit: UnitFile, dropIns: [UnitFile]) -> UnitFile {
        var sections: [UnitFile.Section] = []
        for section in ([unit] + dropIns).flatMap(\.sections) {
            guard let index = sections.firstIndex(where: { $0.name == section.name }) else {
                sections.append(UnitFile.Section(name: section.name, line: section.line,
                                                 entries: apply(section.entries, to: [])))
                continue
            }
            sections[index].entries = apply(section.entries, to: sections[index].entries)
        }
        return UnitFile(sections: sections)
    }

    /// The unit file's text then its drop-ins' texts, each parsed; one that does not parse counts
    /// as empty (for units read only to learn a setting, as anacron's are).
    public static func merge(texts: [String], path: String) -> UnitFile {
        let files = texts.map { text in
            UnitFileParser.parse(Array(text.utf8), path: path, expectedSection: "[Unit]").value ?? UnitFile()
        }
        guard let unit = files.first else { return UnitFile() }
        return merge(unit, dropIns: Array(files.dropFirst()))
    }

    static func apply(_ assignments: [UnitFile.Entry], to entries: [UnitFile.Entry]) -> [UnitFile.Entry] {
        var entries = entries
        for entry in assignments {
            let reset = resetGroup(of: entry.key)
            if entry.value.trimmingSpaces.isEmpty {
                entries.removeAll { resetGroup(of: $0.key) == reset }
            } else {
                if !isList(entry.key) { entries.removeAll { $0.key == entry.key } }
                entries.append(entry)
            }
        }
        return entries
    }

    /// The keys an empty assignment of `key` empties. An empty trigger of a timer empties every
    /// trigger, calendar and monotonic alike (systemd.timer(5)).
    static func resetGroup(of key: String) -> String {
        if key.hasPrefix("Condition") { return "Condition" }
        if key.hasPrefix("Assert") { return "Assert" }
        if timerTriggers.contains(key) { return "OnCalendar" }
        return key
    }

    static let timerTriggers: Set<String> = ["OnCalendar", "OnActiveSec", "OnBootSec", "OnStartupSec",
                                             "OnUnitActiveSec", "OnUnitInactiveSec"]

    /// Settings systemd reads as lists: each assignment adds to what came before.
    static func isList(_ key: String) -> Bool {
        listPrefixes.contains(where: key.hasPrefix) || listKeys.contains(key)
    }

    static let listPrefixes = ["Condition", "Assert", "Exec"]
    static let listKeys: Set<String> = [
        "OnCalendar", "OnActiveSec", "OnBootSec", "OnStartupSec", "OnUnitActiveSec", "OnUnitInactiveSec",
        "OnFailure", "OnSuccess",
        "Environment", "EnvironmentFile", "PassEnvironment", "UnsetEnvironment", "SuccessExitStatus",
        "ReadWritePaths", "ReadOnlyPaths", "InaccessiblePaths", "ExecPaths", "NoExecPaths",
        "ReadWriteDirectories", "ReadOnlyDirectories", "InaccessibleDirectories",
        "BindPaths", "BindReadOnlyPaths", "TemporaryFileSystem", "SupplementaryGroups", "DeviceAllow",
        "After", "Before", "Wants", "Requires", "Requisite", "BindsTo", "PartOf", "Upholds", "Conflicts",
        "Documentation", "RestartPreventExitStatus", "RestartForceExitStatus",
    ]
}
