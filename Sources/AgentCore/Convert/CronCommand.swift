// SPDX-License-Identifier: Apache-2.0
/// A crontab command's `%` signs as cron reads them (crontab(5), Vixie cron's do_command): `\%`
/// is a literal `%` (its backslash dropped); the first unescaped `%` ends the command, and what
/// follows is written to the command's standard input, each further unescaped `%` a newline,
/// with a final newline added. Any other backslash stays for the shell.
struct CronCommand: Equatable {
    var command: String
    /// What cron writes to the command's standard input; nil when the line has no unescaped `%`.
    var input: String?

    init(command: String, input: String? = nil) {
        self.command = command
        self.input = input
    }

    init(line text: String) {
        var command = "", escaped = false
        var rest: Substring?
        for index in text.indices {
            let character = text[index]
            if escaped {
                escaped = false
                if character == "%" { command.removeLast() }
            } else if character == "%" {
                rest = text[text.index(after: index)...]
                break
            } else {
                escaped = character == "\\"
            }
            command.append(character)
        }
        self.command = command
        // `cmd%` alone: cron writes nothing, as when there is no `%`.
        input = rest.flatMap { $0.isEmpty ? nil : Self.input($0) }
    }

    private static func input(_ text: Substring) -> String {
        var out = "", escaped = false
        for character in text {
            if escaped {
                escaped = false
                if character != "%" { out.append("\\") }
                if character == "\\" { escaped = true; continue }
                out.append(character)
            } else if character == "\\" {
                escaped = true
            } else {
                out.append(character == "%" ? "\n" : character)
            }
        }
        if escaped { out.append("\\") }
        if out.last != "\n" { out.append("\n") }
        return out
    }
}

extension CronCommand {
    /// Whether a cron command tests for systemd so as to do nothing under it, as Debian guards
    /// a line that has a timer twin (`test -e /run/systemd/system || e2scrub_all_cron`,
    /// certbot's `… \\! -d /run/systemd/system && certbot …`). The opposite test (`[ -d
    /// /run/systemd/system ] && …`) runs the rest only under systemd: that line is converted.
    public static func runsOnlyWithoutSystemd(_ command: String) -> Bool {
        guard let test = command.firstRange(of: "/run/systemd/system") else { return false }
        let negated = command[..<test.lowerBound].split { $0 == " " || $0 == "\t" }.suffix(2)
            .contains { $0 == "!" || $0 == "\\!" }
        let after = command[test.upperBound...].drop { $0 == " " || $0 == "\t" || $0 == "]" }
        return negated ? !after.hasPrefix("||") : !after.hasPrefix("&&")
    }
}
