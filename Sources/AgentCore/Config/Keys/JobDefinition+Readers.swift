// SPDX-License-Identifier: Apache-2.0
/// The readers of the keys whose rows need more than a line or two (`JobKeyTable`).
extension JobDefinition {
    static func readUser(_ input: inout JobKeyInput) {
        guard let assignment = input.reader.scalar("User") else { return }
        let name = assignment.value
        let context = input.context
        if name.utf8.contains(where: { TextBytes.isWhitespace($0) || $0 == 0x3A || $0 == TextBytes.slash }) {
            input.reader.error(assignment.line, "User: \(TextBytes.quoted(name)) is not a user name")
        } else if !context.privileged {
            if name != context.agentUserName && name != String(context.agentUID) {
                input.reader.error(assignment.line, "User: \(TextBytes.quoted(name)) cannot be used: the "
                    + "agent runs unprivileged as \(context.agentUserName) and can run jobs only "
                    + "as that user; remove User= or run agentd as root")
            } else {
                input.definition.user = name
            }
        } else if !input.facts.userExists(name) {
            input.reader.error(assignment.line, "User: \(TextBytes.quoted(name)) does not exist; create "
                + "the user or remove User= to run the job as DefaultUser")
        } else {
            input.definition.user = name
        }
    }

    /// `OnSuccess=`/`OnFailure=`: another job's identifier.
    static func readChain(_ key: String, _ input: inout JobKeyInput) -> Identifier? {
        guard let assignment = input.reader.scalar(key) else { return nil }
        guard let next = Identifier(rawValue: assignment.value) else {
            input.reader.error(assignment.line, "\(key): \(TextBytes.quoted(assignment.value)) is not "
                + "an identifier: \(Identifier.problem(with: assignment.value) ?? "")")
            return nil
        }
        if next == input.definition.identifier {
            input.reader.error(assignment.line, "\(key): a job cannot chain to itself "
                + "(\(next)); name another job's identifier")
            return nil
        }
        return next
    }

    static func readEnvironment(_ input: inout JobKeyInput) {
        var environment = EnvironmentAssignments()
        for assignment in input.reader.list("Environment") {
            let words: [String]
            if assignment.isSingleItem {
                words = [assignment.value]
            } else {
                switch ExecLine.tokenize(assignment.value) {
                case .success(let split): words = split
                case .failure(let error):
                    input.reader.error(assignment.line, "Environment: \(error)")
                    continue
                }
            }
            for word in words {
                guard let equals = word.utf8.firstIndex(of: TextBytes.equals) else {
                    input.reader.error(assignment.line, "Environment: \(TextBytes.quoted(word)) is not a "
                        + "NAME=VALUE assignment")
                    continue
                }
                let name = String(word[..<equals])
                let value = String(word[word.utf8.index(after: equals)...])
                if let problem = EnvironmentVariable.problem(withName: name) {
                    input.reader.error(assignment.line, "Environment: \(problem)")
                    continue
                }
                // As in systemd, a later assignment of the same name replaces the earlier one.
                environment.assign(name, value)
            }
        }
        input.definition.environment = environment.variables
    }

    /// Every `Exec=` line: the first is `exec` (what the spawn runs today), all of them
    /// `extra.commands` when there are several or one may fail.
    static func readExec(_ input: inout JobKeyInput) {
        let assignments = input.reader.list("Exec")
        guard !assignments.isEmpty else {
            if let line = input.reader.resetLine("Exec") {
                input.reader.error(line, "Exec: is empty; name the plugin by its absolute path, "
                    + "e.g. Exec=/usr/lib/agentd/plugins/NAME")
            } else {
                input.reader.error(input.sectionLine, "Exec= is missing; add Exec=/absolute/path/to/plugin to [Job]")
            }
            return
        }
        var commands: [ExecCommand] = []
        for assignment in assignments {
            var text = Substring(assignment.value)
            while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
            let mayFail = text.first == "-"
            if mayFail { text = text.dropFirst() }
            switch ExecLine.split(String(text)) {
            case .failure(let error):
                input.reader.error(assignment.line, "Exec: \(error)")
            case .success(let argv):
                guard let program = argv.first else {
                    input.reader.error(assignment.line, "Exec: has no command; name the plugin by its "
                        + "absolute path, e.g. Exec=/usr/lib/agentd/plugins/NAME")
                    continue
                }
                guard program.utf8.first == TextBytes.slash else {
                    input.reader.error(assignment.line, "Exec: \(TextBytes.quoted(program)) is not an "
                        + "absolute path (name the plugin by its full path, e.g. "
                        + "/usr/lib/agentd/plugins/NAME)")
                    continue
                }
                commands.append(ExecCommand(argv: argv, mayFail: mayFail))
                let status = input.facts.plugin(at: program)
                if mayFail, case .missing = status {
                    // systemd ignores a `-` command that cannot be run (203/EXEC); so does a run.
                    input.reader.warning(assignment.line, "Exec: \(TextBytes.shellQuoted(program)) does not exist; "
                        + "its - prefix lets each run go on without it, as under systemd")
                    continue
                }
                if let problem = OwnershipRule.pluginProblem(
                    status, path: program, agentUID: input.context.agentUID,
                    agentUserName: input.context.agentUserName)
                {
                    input.reader.error(assignment.line, "Exec: \(TextBytes.shellQuoted(program)) \(problem)")
                }
            }
        }
        guard let first = commands.first else { return }
        input.definition.exec = first.argv
        if commands.count > 1 || first.mayFail {
            input.definition.extra.commands = commands
        }
    }
}
