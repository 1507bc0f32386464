// SPDX-License-Identifier: Apache-2.0
/// Rows of the keys that shape a run's commands and environment (issue 26 items 5 and 6).
extension JobKeyTable {
    static let commandRows: [JobKey] = [
        JobKey("WorkingDirectory", default: "STATE_DIRECTORY",
               doc: "the directory the commands start in: an absolute path or ~ (the user's home); - ignores a missing one") { input in
            guard let assignment = input.reader.scalar("WorkingDirectory") else { return }
            let (path, mayBeMissing) = JobKeyTable.optionalPrefix(assignment.value)
            guard path == "~" || path.utf8.first == TextBytes.slash else {
                input.reader.error(assignment.line, "WorkingDirectory: \(TextBytes.quoted(path)) is not an "
                    + "absolute path or ~ (examples: WorkingDirectory=/, WorkingDirectory=~, WorkingDirectory=-/srv/x)")
                return
            }
            input.definition.extra.workingDirectory = path
            input.definition.extra.workingDirectoryMayBeMissing = mayBeMissing
        },
        JobKey("EnvironmentFile", .list, default: "none",
               doc: "files of NAME=VALUE lines read at each spawn; a leading - ignores a missing file") { input in
            var files: [EnvironmentFileReference] = []
            for (word, line) in input.reader.words("EnvironmentFile") {
                let (path, mayBeMissing) = JobKeyTable.optionalPrefix(word)
                guard path.utf8.first == TextBytes.slash else {
                    input.reader.error(line, "EnvironmentFile: \(TextBytes.quoted(path)) is not an absolute path "
                        + "(examples: EnvironmentFile=/etc/default/NAME, EnvironmentFile=-/etc/default/NAME)")
                    continue
                }
                files.append(EnvironmentFileReference(path: path, mayBeMissing: mayBeMissing))
            }
            input.definition.extra.environmentFiles = files
        },
        JobKey("SuccessExitStatus", .list, default: "none",
               doc: "exit statuses (and signals) that also count as success, e.g. 2 SIGHUP") { input in
            var statuses = SuccessExitStatus()
            for (word, line) in input.reader.words("SuccessExitStatus") {
                if let problem = statuses.add(word) {
                    input.reader.error(line, "SuccessExitStatus: \(problem)")
                }
            }
            input.definition.extra.successExitStatus = statuses
        },
    ]

    /// systemd's leading `-` ("a missing file is fine") split off a path.
    static func optionalPrefix(_ value: String) -> (path: String, mayBeMissing: Bool) {
        value.hasPrefix("-") ? (String(value.dropFirst()), true) : (value, false)
    }

    static let conditionRows: [JobKey] = UnitCondition.Check.allCases.map { check in
        JobKey(check.key, .list, default: "none",
               doc: conditionDoc[check] ?? "") { input in
            for assignment in input.reader.list(check.key) {
                switch UnitCondition.parse(check, assignment.value) {
                case .success(let condition): input.definition.extra.conditions.append(condition)
                case .failure(let error): input.reader.error(assignment.line, "\(check.key): \(error.message)")
                }
            }
        }
    }

    static let conditionDoc: [UnitCondition.Check: String] = [
        .pathExists: "skip the run unless the path exists (| and ! as in systemd.unit(5))",
        .pathExistsGlob: "skip the run unless some path matches the glob",
        .pathIsDirectory: "skip the run unless the path is a directory",
        .directoryNotEmpty: "skip the run unless the directory has an entry",
        .fileNotEmpty: "skip the run unless the file is a regular file of non-zero size",
        .fileIsExecutable: "skip the run unless the file is executable",
        .virtualization: "skip the run unless the machine is (not) virtualized: a boolean, vm, container or a name",
        .capability: "skip the run unless the agent's capability bounding set holds this one (CAP_SYS_RAWIO…)",
        .acPower: "skip the run unless on (yes) or off (no) external power",
    ]
}
