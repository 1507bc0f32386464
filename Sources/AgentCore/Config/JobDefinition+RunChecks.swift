// SPDX-License-Identifier: Apache-2.0
/// What `check` says about a job that loads but would fail at every run (issue 26 items 1, 2).
extension JobDefinition {
    /// `check` warns when `User=` cannot read and execute a plugin (issue 26 item 1): it would
    /// fail at every run with `Permission denied`.
    static func warnAboutPluginAccess(_ input: inout JobKeyInput) {
        guard input.context.privileged, let name = input.definition.user,
              let user = input.facts.userIdentity(name) else { return }
        let line = JobKeyTable.rows.first { $0.name == "Exec" }?.line(in: input.reader)
        for program in Set(input.definition.commands.compactMap(\.argv.first)).sorted() {
            guard case .present(let file, _) = input.facts.plugin(at: program),
                  let problem = PluginAccess.problem(file, user: user, userName: name) else { continue }
            input.reader.warning(line, "Exec: \(TextBytes.shellQuoted(program)) \(problem)")
        }
    }

    /// Mounts and namespaces need a root agent: said at load (and by `check`), not only when a
    /// run ends spawn-failed.
    static func warnAboutUnenforceableSandbox(_ input: inout JobKeyInput) {
        guard !input.context.privileged, let name = SandboxPlan.firstPrivilegedKey(input.definition.extra.sandbox),
              let key = JobKeyTable.rows.first(where: { $0.name == name }) else { return }
        input.reader.warning(key.line(in: input.reader), "\(name): needs a root agent: this agent runs "
            + "unprivileged and cannot make the mounts and namespaces it needs, so every run of this job "
            + "ends spawn-failed(\(name)=: needs a root agent …)")
    }
}
