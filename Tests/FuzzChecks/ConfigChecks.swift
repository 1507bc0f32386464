// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// Unit-file syntax, then the file as a job, an agentd.conf, a manifest and a drop-in script.
/// Invariants: a value exactly when no error; every diagnostic names the file and a line in it;
/// keys are non-empty and single-line; a file the syntax parser accepts re-renders to the same file.
enum ConfigChecks {
    static let context = ConfigContext(agentUID: 0, agentUserName: "root", privileged: true)

    static func check(_ bytes: [UInt8]) -> String? {
        // A lone `\r` ends a line too, as in systemd, so this bounds the lines from above.
        let lineCount = bytes.count { $0 == 0x0A || $0 == 0x0D } + 1
        let unit = UnitFileParser.parse(bytes, path: "jobs.d/fuzz.job", expectedSection: "[Job]")
        if let failure = consistent(unit, lineCount: lineCount, what: "unit file") { return failure }
        if let file = unit.value, let failure = rendersBack(file) { return failure }
        let job = JobDefinition.parse(bytes, path: "jobs.d/com.example.fuzz.job", context: context, facts: FuzzFacts())
        if let failure = consistent(job, lineCount: lineCount, what: "job") { return failure }
        let settings = AgentSettings.parse(bytes, path: "agentd.conf", context: context, facts: FuzzFacts())
        if let failure = consistent(settings, lineCount: lineCount, what: "agentd.conf") { return failure }
        let manifest = Manifest.parse(bytes, path: "manifests.d/fuzz.manifest")
        if let failure = consistent(manifest, lineCount: lineCount, what: "manifest") { return failure }
        let dropIn = DropInScript.parse(bytes, path: "jobs.d/com.example.fuzz", context: context, facts: FuzzFacts())
        return consistent(dropIn, lineCount: lineCount, what: "drop-in")
    }

    static func consistent<T>(_ result: ConfigParseResult<T>, lineCount: Int, what: String) -> String? {
        let errors = result.diagnostics.filter { $0.severity == .error }
        if result.value == nil, errors.isEmpty { return "\(what): no value and no error" }
        if result.value != nil, !errors.isEmpty { return "\(what): a value despite \(errors)" }
        for diagnostic in result.diagnostics {
            if let line = diagnostic.line, !(1...lineCount).contains(line) {
                return "\(what): diagnostic line \(line) outside 1...\(lineCount): \(diagnostic)"
            }
            if diagnostic.message.isEmpty { return "\(what): an empty diagnostic" }
        }
        return nil
    }

    /// `[Name]` and `Key=Value` lines written back: the syntax parser gives the same sections and
    /// assignments (line numbers aside). Values with a newline came from continuations and are
    /// not re-rendered; neither are values whose edges are whitespace the parser trims.
    static func rendersBack(_ file: UnitFile) -> String? {
        var text = ""
        for section in file.sections {
            if section.name.isEmpty || section.name.contains("\n") {
                return "section name \(String(reflecting: section.name))"
            }
            text += "[\(section.name)]\n"
            for entry in section.entries {
                if entry.key.isEmpty || entry.key.contains("\n") || entry.key.contains("=") {
                    return "key \(String(reflecting: entry.key))"
                }
                guard renderable(entry.value) else { return nil }
                text += "\(entry.key)=\(entry.value)\n"
            }
        }
        let again = UnitFileParser.parse(Array(text.utf8), path: "jobs.d/fuzz.job", expectedSection: "[Job]")
        guard let reparsed = again.value else { return "re-rendered file refused: \(again.diagnostics)" }
        let before = file.sections.map { shape($0) }
        let after = reparsed.sections.map { shape($0) }
        return before == after ? nil : "re-rendered file differs: \(before) then \(after)"
    }

    static func renderable(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        if bytes.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0x5C }) { return false }
        if let first = bytes.first, first == 0x20 || first == 0x09 { return false }
        if let last = bytes.last, last == 0x20 || last == 0x09 { return false }
        return true
    }

    static func shape(_ section: UnitFile.Section) -> [String] {
        ["[\(section.name)]"] + section.entries.map { "\($0.key)=\($0.value)" }
    }
}

/// Every plugin path is an executable owned by root, every user exists: the parsers go as far
/// as they can.
struct FuzzFacts: SystemFacts {
    func plugin(at path: String) -> PluginStatus {
        .present(FileFacts(ownerUID: 0, mode: 0o100755), executable: true)
    }

    func userExists(_ name: String) -> Bool { true }
}
