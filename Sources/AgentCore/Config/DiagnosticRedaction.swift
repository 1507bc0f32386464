// SPDX-License-Identifier: Apache-2.0
/// Diagnostics of a file that the control socket's readers could not read themselves (not
/// world-readable, or reached through a symlink into directories they cannot enter): they keep
/// the file, the line and what kind of problem it is, but no text of the file — no quoted value,
/// no unknown key or section name, no path from `Exec=`. Otherwise a symlink `jobs.d/z.job ->
/// /etc/shadow` would hand the file's lines to everyone in group agentd.
enum DiagnosticRedaction {
    /// Said once per diagnostic, with the cure that works as written: `agentctl check` reads the
    /// files itself, with the caller's own permissions, and then shows everything.
    static let note = "(text not shown: the file is not readable by everyone; "
        + "agentctl check, run as a user who can read it, shows it)"

    /// The content-free form of `diagnostic`.
    static func redacted(_ diagnostic: ConfigDiagnostic) -> ConfigDiagnostic {
        var copy = diagnostic
        copy.message = redacted(message: diagnostic.message)
        return copy
    }

    static func redacted(message: String) -> String {
        // Messages about one known key keep the key: "Interval: … is not a time span".
        if let colon = message.firstIndex(of: ":") {
            let key = String(message[..<colon])
            if knownKeys.contains(key) {
                if key == "Exec" { return "Exec: names a plugin that cannot be used " + note }
                return key + ":" + withoutQuotes(String(message[message.index(after: colon)...]))
                    + " " + note
            }
        }
        if message.contains(": unknown key in ") { return "unknown key, ignored " + note }
        if message.hasPrefix("unknown section [") { return "unknown section, ignored " + note }
        if message.contains("= comes before any section") {
            return "an assignment comes before any section header " + note
        }
        if message.hasPrefix("section header ") { return "malformed section header " + note }
        if message.contains("is not a Key=Value assignment") {
            return "is not a Key=Value assignment, a [Section] header or a comment " + note
        }
        if message.contains("in the # agentd: header is not a Key=Value setting")
            || message.contains("in the # agentd: header are not Key=Value settings") {
            return "a word in the # agentd: header is not a Key=Value setting " + note
        }
        // The rest name no text of the file (line too long, NUL byte, not UTF-8, missing
        // section or key); quoted text is removed all the same.
        let stripped = withoutQuotes(message)
        return stripped == message ? message : stripped + " " + note
    }

    /// Every key a config file may set: a message starting with one of them is about it.
    static let knownKeys: Set<String> = Set(JobDefinition.scalarKeys + JobDefinition.listKeys
        + ["PermittedIdentifiers", "BackgroundModes", "DefaultUser", "MaxConcurrent",
           "DailyBudget", "TriggerSpacing", "CatchUpSpread", "BatteryLow", "BatteryCritical",
           "Deny", "FairMargin", "CriticalMargin", "MetricsFile", "# agentd: header"])

    /// `text` with every `"…"` quotation (as `TextBytes.quoted` writes them) replaced by `"…"`.
    static func withoutQuotes(_ text: String) -> String {
        var out = ""
        var inQuote = false
        var escaped = false
        for character in text {
            if inQuote {
                if escaped { escaped = false; continue }
                if character == "\\" { escaped = true; continue }
                if character == "\"" { inQuote = false; out += "…\"" }
                continue
            }
            out.append(character)
            if character == "\"" { inQuote = true }
        }
        if inQuote { out += "…\"" }
        return out
    }
}
