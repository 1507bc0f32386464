// SPDX-License-Identifier: Apache-2.0
/// One config file, parsed and validated on its own.
public enum ParsedConfig: Hashable, Sendable {
    case agentSettings(AgentSettings)
    case manifest(Manifest)
    case job(JobDefinition)
    /// Not a config file (by name), or a drop-in without execute bits: nothing to load.
    case ignored(reason: String)
}

/// Offline validation of a single file, as `agentctl check` (like `nginx -t`) and the registry
/// use it: the file's role from its name, cron.d's ownership rule on the file, then the parser
/// of its role. Cross-file questions — duplicate identifiers, whether a manifest permits a
/// job — need a `ConfigRegistry`; to check a whole directory, feed every file to one and print
/// its `diagnostics`.
public enum ConfigCheck {
    public static func check(_ source: ConfigSource, context: ConfigContext,
                             facts: some SystemFacts) -> ConfigParseResult<ParsedConfig>
    {
        checkDetailed(source, context: context, facts: facts).result
    }

    static func checkDetailed(_ source: ConfigSource, context: ConfigContext,
                              facts: some SystemFacts)
        -> (result: ConfigParseResult<ParsedConfig>, lines: JobLines)
    {
        let (result, line) = checkQuoting(source, context: context, facts: facts)
        guard !source.contentIsPublic, !context.quotesPrivateFiles, !result.diagnostics.isEmpty else {
            return (result, line)
        }
        let redacted = result.diagnostics.map(DiagnosticRedaction.redacted)
        if let value = result.value {
            return (ConfigParseResult(value: value, diagnostics: redacted), line)
        }
        return (.failure(redacted), line)
    }

    /// `checkDetailed` before redaction.
    private static func checkQuoting(_ source: ConfigSource, context: ConfigContext,
                                     facts: some SystemFacts)
        -> (result: ConfigParseResult<ParsedConfig>, lines: JobLines)
    {
        let path = ConfigPath.normalized(source.relativePath) ?? source.relativePath
        let role = ConfigPath.role(of: path)
        if case .ignored(let reason) = role {
            return (ConfigParseResult(value: .ignored(reason: reason), diagnostics: []), JobLines())
        }
        let absolutePath = context.absolutePath(of: path)
        if OwnershipRule.isKnownNonRegular(source.facts) {
            let refusal = ConfigDiagnostic(path: path, message: "is not a regular file; "
                + "config files must be regular files")
            return (.failure([refusal]), JobLines())
        }
        let ownershipProblem = role == .dropInScript
            ? DropInScript.ownershipProblem(source.facts, absolutePath: absolutePath, context: context)
            : OwnershipRule.problem(with: source.facts, absolutePath: absolutePath,
                                    agentUID: context.agentUID, agentUserName: context.agentUserName)
        if role == .dropInScript, !DropInScript.hasRunPartsName(Self.fileName(path)) {
            // run-parts skips such names silently; an executable one is said once, since it
            // was most likely disabled on purpose (or named x.sh by mistake).
            let warnings = source.facts.isExecutableByAnyone ? [DropInScript.nameWarning(path: path)] : []
            return (ConfigParseResult(value: .ignored(reason: "not a run-parts name"),
                                      diagnostics: warnings), JobLines())
        }
        // A linked file is only as safe as every link and directory on the way to it. What lies
        // outside the config directory is not watched: the cure takes a SIGHUP to be seen.
        let linkProblem = PathChainRule.problem(source.linkSteps, path: source.linkPath,
                                                agentUID: context.agentUID, agentUserName: context.agentUserName)
            .map { $0 + "; then send agentd SIGHUP to read it again" }
        if let problem = ownershipProblem ?? linkProblem {
            return (.failure([ConfigDiagnostic(path: path, message: problem)]), JobLines())
        }
        if let expected = role.expectedSection,
           var problem = UnitFileSniff.problem(source.bytes, expectedSection: expected)
        {
            problem.path = path
            return (.failure([problem]), JobLines())
        }
        switch role {
        case .agentSettings:
            let parsed = AgentSettings.parse(source.bytes, path: path, context: context, facts: facts)
            return (ConfigParseResult(value: parsed.value.map(ParsedConfig.agentSettings),
                                      diagnostics: parsed.diagnostics), JobLines())
        case .manifest:
            let parsed = Manifest.parse(source.bytes, path: path, namesCheckedBy: context.privileged ? facts : nil)
            return (ConfigParseResult(value: parsed.value.map(ParsedConfig.manifest),
                                      diagnostics: parsed.diagnostics), JobLines())
        case .jobDefinition:
            let (parsed, line) = JobDefinition.parseDetailed(
                source.bytes, path: path, context: context, facts: facts)
            return (ConfigParseResult(value: parsed.value.map(ParsedConfig.job),
                                      diagnostics: parsed.diagnostics), line)
        case .dropInScript:
            guard source.facts.isExecutableByAnyone else {
                let name = Self.fileName(path)
                let reason = "not executable, so not a drop-in job script"
                let warning = ConfigDiagnostic(
                    path: path, severity: .warning,
                    message: "\(reason); run chmod +x \(TextBytes.shellQuoted(absolutePath)) to run it "
                        + "as local.\(name), or name a job definition NAME.job")
                return (ConfigParseResult(value: .ignored(reason: reason), diagnostics: [warning]), JobLines())
            }
            let (parsed, lines) = DropInScript.parseDetailed(
                source.bytes, path: path, context: context, facts: facts, ownerUID: source.facts.ownerUID)
            return (ConfigParseResult(value: parsed.value.map(ParsedConfig.job),
                                      diagnostics: parsed.diagnostics), lines)
        case .ignored:
            return (ConfigParseResult(value: .ignored(reason: ""), diagnostics: []), JobLines())
        }
    }

    private static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
