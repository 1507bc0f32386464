// SPDX-License-Identifier: Apache-2.0
/// A drop-in job script: an executable file `jobs.d/NAME` without a `.job` suffix, like a script
/// in `/etc/cron.daily` with a scheduler behind it.
///
/// - Its name follows run-parts' rule `^[A-Za-z0-9_-]+$` (`DropInScriptRules`); another
///   executable name (`backup.disabled`, `x.bak`) is ignored with a warning. Its identifier is
///   `local.NAME`.
/// - It is run as is: `Exec=` is the script's absolute path, with no arguments, as its file's
///   owner unless the header names `User=` (only a root-owned script may name another user).
/// - Settings come from comment lines `# agentd: Key=Value Key2=Value2` within its first 20
///   lines, split with `Exec=`'s quoting rules (`# agentd: Environment="GREETING=hello world"`).
///   Each token is one value: a list key such as `Environment=` or `Resources=` takes one item
///   per token. `Identifier=` and `Exec=` are not allowed there.
/// - Defaults: `Kind=processing`, `Interval=1d`, no `MaxRuntime=` (run-parts has none);
///   everything else as in a `.job` file.
/// - A script whose owner is not root gains no priority from its header: `Nice=` below 0,
///   `CPUWeight=` above the default and `IOSchedulingPriority=0` (best-effort's top) are refused.
/// - A file without any execute bit is not a drop-in script: it is skipped with a warning, so
///   `chmod -x` disables a script as it does for run-parts.
public enum DropInScript {
    /// Only this many leading lines are searched for `# agentd:` headers.
    public static let headerLineLimit = 20
    public static let headerMarker = "agentd:"

    /// What a drop-in script's file name is prefixed with to make its identifier.
    public static let identifierPrefix = "local."

    /// The file name (in `jobs.d/`) of the drop-in script `id` would be, or nil when `id` is not
    /// `local.NAME`.
    public static func fileName(of id: Identifier) -> String? {
        guard id.rawValue.hasPrefix(identifierPrefix) else { return nil }
        return String(id.rawValue.dropFirst(identifierPrefix.count))
    }

    /// The identifier of the drop-in script named `fileName`, or a message saying why the name
    /// cannot form one.
    public static func identifier(forFileName fileName: String) -> Result<Identifier, DropInNameError> {
        let raw = identifierPrefix + fileName
        if let id = Identifier(rawValue: raw) { return .success(id) }
        return .failure(DropInNameError(
            message: "the file name cannot form the identifier \(TextBytes.quoted(raw)): "
                + "\(Identifier.problem(with: raw) ?? ""); rename the script"))
    }

    /// Parses and validates the drop-in script at `path` (`jobs.d/NAME`). The script itself is
    /// checked as a plugin through `facts`; its execute bits are the caller's (`ConfigCheck`).
    /// `ownerUID`: the file's owner (the user it runs as); nil takes it from `facts`.
    public static func parse(_ bytes: [UInt8], path: String, context: ConfigContext,
                             facts: some SystemFacts, ownerUID: UInt32? = nil)
        -> ConfigParseResult<JobDefinition>
    {
        parseDetailed(bytes, path: path, context: context, facts: facts, ownerUID: ownerUID).result
    }

    /// `parse`, and the line of the `OnSuccess=` header token.
    static func parseDetailed(_ bytes: [UInt8], path: String, context: ConfigContext,
                              facts: some SystemFacts, ownerUID: UInt32? = nil)
        -> (result: ConfigParseResult<JobDefinition>, lines: JobLines)
    {
        let fileName = path.split(separator: "/").last.map(String.init) ?? path
        var diagnostics: [ConfigDiagnostic] = []
        var identifier: Identifier?
        switch Self.identifier(forFileName: fileName) {
        case .success(let id): identifier = id
        case .failure(let error):
            diagnostics.append(ConfigDiagnostic(path: path, message: error.message))
        }
        let (assignments, headerErrors) = headerAssignments(bytes, path: path)
        diagnostics += headerErrors

        let absolutePath = context.absolutePath(of: path)
        var reader = KeyReader(
            path: path, assignments: assignments,
            scalarKeys: JobKeyTable.rows.filter { $0.inDropInHeader && $0.shape == .scalar }.map(\.name),
            listKeys: JobKeyTable.rows.filter { $0.inDropInHeader && $0.shape == .list }.map(\.name),
            place: "the # agentd: header")
        var definition = JobDefinition(
            identifier: identifier ?? Identifier(unchecked: "local.invalid"),
            exec: [absolutePath], isDropInScript: true)
        JobDefinition.readSettings(&reader, into: &definition, context: context, facts: facts)
        diagnostics += reader.diagnostics
        let status = facts.plugin(at: absolutePath)
        var owner = ownerUID
        if owner == nil, case .present(let pluginFacts, _) = status { owner = pluginFacts.ownerUID }
        // A root agent accepts a script of any owner (it runs as that owner): see
        // `ownershipProblem`. Writable-by-others is still refused.
        let trustedUID = context.privileged ? owner ?? context.agentUID : context.agentUID
        if let problem = OwnershipRule.pluginProblem(
            status, path: absolutePath, agentUID: trustedUID, agentUserName: context.agentUserName)
        {
            diagnostics.append(ConfigDiagnostic(path: path, message: problem))
        } else if let owner, reader.diagnostics.allSatisfy({ $0.severity != .error }),
            let problem = resolveUser(&definition, ownerUID: owner, context: context, facts: facts)
        {
            diagnostics.append(ConfigDiagnostic(
                path: path, line: problem.hasPrefix("User:") ? reader.assignment("User")?.line : nil,
                message: problem))
        }
        if let owner, owner != 0 {
            diagnostics += privilegeProblems(definition.priority, reader: reader, path: path,
                                             owner: facts.userName(uid: owner) ?? "uid \(owner)")
        }
        diagnostics = JobDefinition.sortedByLine(diagnostics)
        let lines = JobLines(identifier: nil, onSuccess: reader.assignment("OnSuccess")?.line,
                             identifierValue: identifier, plugin: absolutePath)
        if identifier == nil || diagnostics.contains(where: { $0.severity == .error }) {
            return (.failure(diagnostics), lines)
        }
        return (ConfigParseResult(value: definition, diagnostics: diagnostics), lines)
    }

    /// The `Key=Value` tokens of every `# agentd:` line among the first `headerLineLimit` lines.
    /// Only those lines are decoded, so binaries and scripts in any encoding are fine.
    static func headerAssignments(_ bytes: [UInt8], path: String)
        -> (assignments: [Assignment], errors: [ConfigDiagnostic])
    {
        let marker = Array(headerMarker.utf8)
        var assignments: [Assignment] = []
        var errors: [ConfigDiagnostic] = []
        var index = 0
        var line = 0
        let count = bytes.count
        while index < count, line < headerLineLimit {
            line += 1
            var end = index
            while end < count, bytes[end] != TextBytes.newline { end += 1 }
            defer { index = end + 1 }
            var cursor = index
            while cursor < end, bytes[cursor] == TextBytes.space || bytes[cursor] == TextBytes.tab {
                cursor += 1
            }
            guard cursor < end, bytes[cursor] == TextBytes.hash else { continue }
            cursor += 1
            while cursor < end, bytes[cursor] == TextBytes.space || bytes[cursor] == TextBytes.tab {
                cursor += 1
            }
            guard end - cursor >= marker.count,
                bytes[cursor..<(cursor + marker.count)].elementsEqual(marker)
            else { continue }
            // The same limit as a line of a job file; other long lines (a binary's) are not read.
            guard end - index <= UnitFileParser.maximumLineLength else {
                errors.append(ConfigDiagnostic(
                    path: path, line: line,
                    message: "the # agentd: header line is \(end - index) bytes long; at most 1 MiB "
                        + "(\(UnitFileParser.maximumLineLength) bytes) is allowed"))
                continue
            }
            var textEnd = end
            if textEnd > cursor, bytes[textEnd - 1] == TextBytes.carriageReturn { textEnd -= 1 }
            let range = (cursor + marker.count)..<textEnd
            if TextBytes.firstInvalidUTF8(bytes, range) != nil || bytes[range].contains(0) {
                errors.append(ConfigDiagnostic(
                    path: path, line: line,
                    message: "the # agentd: header is not UTF-8 text without NUL bytes"))
                continue
            }
            let tokens: [String]
            switch ExecLine.tokenize(TextBytes.string(bytes, range)) {
            case .success(let words): tokens = words
            case .failure(let error):
                errors.append(ConfigDiagnostic(path: path, line: line,
                                               message: "# agentd: header: \(error)"))
                continue
            }
            func isSetting(_ token: String) -> Bool {
                token.utf8.firstIndex(of: TextBytes.equals).map { $0 != token.utf8.startIndex } ?? false
            }
            var previous: String?  // the last Key=Value, whose value a run of bare words may continue
            var index = 0
            while index < tokens.count {
                let token = tokens[index]
                index += 1
                guard isSetting(token), let equals = token.utf8.firstIndex(of: TextBytes.equals) else {
                    var bare = [token]
                    while index < tokens.count, !isSetting(tokens[index]) {
                        bare.append(tokens[index])
                        index += 1
                    }
                    errors.append(ConfigDiagnostic(
                        path: path, line: line,
                        message: "\(TextBytes.quoted(bare.joined(separator: " "))) in the # agentd: header "
                            + (bare.count == 1 ? "is not a Key=Value setting" : "are not Key=Value settings")
                            + Self.quotingHint(previous, bare)))
                    continue
                }
                previous = token
                let key = String(token[..<equals])
                let value = String(token[token.utf8.index(after: equals)...])
                switch key {
                case "Identifier":
                    errors.append(ConfigDiagnostic(
                        path: path, line: line,
                        message: "Identifier= cannot be set in a drop-in script: its identifier "
                            + "is local.NAME after its file name; write a .job file to choose one"))
                case "Exec":
                    errors.append(ConfigDiagnostic(
                        path: path, line: line,
                        message: "Exec= cannot be set in a drop-in script: the script itself is "
                            + "run; write a .job file to run another program"))
                default:
                    assignments.append(Assignment(key: key, value: value, line: line,
                                                  isSingleItem: true))
                }
            }
        }
        return (assignments, errors)
    }

    /// Keys whose one value may hold spaces: a calendar event, `Retry=`'s policy, time spans
    /// (`1h 30min`), an environment assignment, a description.
    static let spacedValueKeys: Set<String> = [
        "Schedule", "Retry", "Environment", "Description", "Interval", "AfterBoot", "RandomizedDelay",
        "MaxRuntime", "GracePeriod", "IdleFor", "ProgressTimeout", "MaxPause",
    ]

    /// How to write what was probably meant: after `Schedule=Mon`, the bare word `03:00` was
    /// the value's, which is quoted (`Schedule="Mon 03:00"`); else (`Kind=refresh daily`, where
    /// quoting would not help) an example.
    static func quotingHint(_ setting: String?, _ bare: [String]) -> String {
        guard let setting, let equals = setting.firstIndex(of: "="),
              spacedValueKeys.contains(String(setting[..<equals]))
        else {
            return " (example: # agentd: Kind=refresh Interval=1h)"
        }
        let value = ([String(setting[setting.index(after: equals)...])] + bare).joined(separator: " ")
        // Key and value together keep the 80-byte rule; quoted() escapes what the header's quoting needs.
        let key = TextBytes.shownName(String(setting[..<equals]))
        return "; a value with spaces is quoted: \(key)=\(TextBytes.quoted(value, limit: max(8, TextBytes.quoteLimit - key.utf8.count)))"
    }
}

/// Why a drop-in script's file name cannot form an identifier.
public struct DropInNameError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
