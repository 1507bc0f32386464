// SPDX-License-Identifier: Apache-2.0
/// Rows of the job's own sandbox (`JobSandbox`, issue 26 item 2).
extension JobKeyTable {
    static let sandboxRows: [JobKey] = [
        JobKey("ProtectSystem", default: "no", doc: "yes: /usr and /boot read-only; full: and /etc; strict: the whole tree") { input in
            guard let assignment = input.reader.scalar("ProtectSystem") else { return }
            guard let value = JobSandbox.ProtectSystem(setting: assignment.value) else {
                input.reader.error(assignment.line, "ProtectSystem: \(TextBytes.quoted(assignment.value)) is not "
                    + "a ProtectSystem= value (yes, full, strict or no)")
                return
            }
            input.definition.extra.sandbox.protectSystem = value
        },
        JobKey("ProtectHome", default: "no", doc: "yes: /home, /root and /run/user inaccessible; read-only; tmpfs") { input in
            guard let assignment = input.reader.scalar("ProtectHome") else { return }
            guard let value = JobSandbox.ProtectHome(setting: assignment.value) else {
                input.reader.error(assignment.line, "ProtectHome: \(TextBytes.quoted(assignment.value)) is not "
                    + "a ProtectHome= value (yes, read-only, tmpfs or no)")
                return
            }
            input.definition.extra.sandbox.protectHome = value
        },
        JobKey("PrivateTmp", default: "no", doc: "a /tmp and /var/tmp of the run's own") { input in
            input.definition.extra.sandbox.privateTmp = input.reader.bool("PrivateTmp", default: false)
        },
        pathsRow("ReadWritePaths", doc: "paths writable even under ProtectSystem=", \.readWritePaths),
        pathsRow("ReadOnlyPaths", doc: "paths made read-only", \.readOnlyPaths),
        pathsRow("InaccessiblePaths", doc: "paths made inaccessible", \.inaccessiblePaths),
        JobKey("NoNewPrivileges", default: "no", doc: "no privileges gained through exec (setuid, file capabilities)") { input in
            input.definition.extra.sandbox.noNewPrivileges = input.reader.bool("NoNewPrivileges", default: false)
        },
        JobKey("PrivateNetwork", default: "no", doc: "a network namespace with loopback only") { input in
            input.definition.extra.sandbox.privateNetwork = input.reader.bool("PrivateNetwork", default: false)
        },
    ]

    private static func pathsRow(_ name: String, doc: String,
                                 _ field: WritableKeyPath<JobSandbox, [SandboxPath]> & Sendable) -> JobKey
    {
        JobKey(name, .list, default: "none", doc: doc + "; absolute, - ignores a missing one") { input in
            var paths: [SandboxPath] = []
            for (word, line) in input.reader.words(name) {
                var (path, mayBeMissing) = JobKeyTable.optionalPrefix(word)
                // systemd's + (relative to RootDirectory=) means nothing without one.
                if path.hasPrefix("+") { path.removeFirst() }
                guard path.utf8.first == TextBytes.slash else {
                    input.reader.error(line, "\(name): \(TextBytes.quoted(path)) is not an absolute path "
                        + "(examples: \(name)=/var/lib/NAME, \(name)=-/srv/optional)")
                    continue
                }
                paths.append(SandboxPath(path: path, mayBeMissing: mayBeMissing))
            }
            input.definition.extra.sandbox[keyPath: field] = paths
        }
    }
}
