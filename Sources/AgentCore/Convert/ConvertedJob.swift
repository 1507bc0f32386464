// SPDX-License-Identifier: Apache-2.0
/// One job file made by `agentctl convert` from a systemd timer or a cron line: its keys in
/// order, and comments naming what agentd cannot express.
public struct ConvertedJob: Sendable, Hashable {
    /// File name under `jobs.d/` (`apt-daily.job`).
    public var fileName: String
    /// Where it came from, for the header comment.
    public var sources: [String]
    /// The unit's `Description=`, if any.
    public var description: String?
    public var keys: [(key: String, value: String)]
    /// `Key=Value (why)` lines that have no agentd equivalent.
    public var notConverted: [String]
    /// Notes on how a key was translated (`cron runs a line when day-of-month OR weekday matches`).
    public var notes: [String]
    /// A timer's calendars after its first (`OnCalendar=` repeated): each becomes a job of its own
    /// (`TimerConverter.convertAll`). Not part of the file.
    var moreCalendars: [String] = []

    public init(fileName: String, sources: [String], description: String? = nil) {
        self.fileName = fileName
        self.sources = sources
        self.description = description
        self.keys = []
        self.notConverted = []
        self.notes = []
    }

    public static func == (a: ConvertedJob, b: ConvertedJob) -> Bool { a.text == b.text && a.fileName == b.fileName }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }

    mutating func set(_ key: String, _ value: String) { keys.append((key, value)) }

    /// The last value of `key`, if set.
    public func value(of key: String) -> String? { keys.last { $0.key == key }?.value }

    /// The original went on through whatever agentd's policy stops a job for: a suspend froze it
    /// with the rest of the machine, and neither cron nor systemd stops a job for heat, a low
    /// battery or memory pressure. agentd would expire it (`expired(sleep)`, `expired(battery)`…),
    /// a dpkg or a backup midway; the job is frozen instead and goes on once they pass.
    mutating func goesOnAsTheOriginalDid() {
        set("OnSleep", "freeze")
        guard !keys.contains(where: { $0.key == "OnConditionLost" }) else { return }
        ServiceConversion.pausesInsteadOfExpiring(&self)
        notes.append("cron and systemd never stop a job for heat, a low battery or memory pressure: where agentd's "
            + "policy would expire its run, it pauses it until they pass (OnConditionLost=pause, MaxPause=infinity)")
    }

    /// The start of a converted job file's first line, before its sources: how `convert`
    /// knows a file in its output directory as one it wrote.
    public static func header(_ fileName: String) -> String {
        "# jobs.d/\(fileName): converted by agentctl convert from "
    }

    /// The job file's text (systemd syntax: comments only at the start of a line).
    public var text: String {
        let from = sources.count > 2 ? sources.dropLast().joined(separator: ", ") + " and " + (sources.last ?? "")
            : sources.joined(separator: " and ")
        var lines = [Self.header(fileName) + from]
        if let description { lines.append("# " + description) }
        for note in notes { lines.append("# " + note) }
        lines.append("[Job]")
        for (key, value) in keys { lines.append("\(key)=\(value)") }
        if !notConverted.isEmpty {
            lines.append("# Not expressed in agentd:")
            for item in notConverted { lines.append("#   " + item) }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Quoting for `Exec=` (systemd's rules, as ExecLine reads them): a word with anything but
/// plain characters goes in double quotes with `\` and `"` escaped.
enum ExecQuoting {
    static func join(_ words: [String]) -> String {
        words.map(quote).joined(separator: " ")
    }

    static func quote(_ word: String) -> String {
        let plain = !word.isEmpty && word.utf8.allSatisfy { byte in
            TextBytes.isDigit(byte) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || "/._-+=:,@%".utf8.contains(byte)
        }
        if plain { return word }
        var out = "\""
        for character in word {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default: out.append(character)
            }
        }
        return out + "\""
    }
}
