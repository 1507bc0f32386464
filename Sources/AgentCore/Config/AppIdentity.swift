// SPDX-License-Identifier: Apache-2.0
/// What a desktop notification names the app a run belongs to (DESIGN §3 `Description=`,
/// `Icon=`, `DesktopEntry=`): the spec's `app_name`, `app_icon` and `desktop-entry` hint.
///
/// A job and its manifest may both say them: the manifest speaks for its package (every job
/// it permits), the job for itself, so a job's own key wins, key by key. When a desktop entry is
/// named and the name or icon is still missing, the `.desktop` file's `Name=`/`Icon=` fill them
/// in (``filling(from:)``; the shell finds the file). Nothing said: the agent's own name, no icon.
public struct AppIdentity: Hashable, Sendable {
    /// `Description=`: shown as the notification's application name.
    public var name: String?
    /// `Icon=`: an icon name of the icon theme, or an absolute path (a `file://` URI for the spec).
    public var icon: String?
    /// `DesktopEntry=`: the app's `.desktop` file name without `.desktop`.
    public var desktopEntry: String?

    public init(name: String? = nil, icon: String? = nil, desktopEntry: String? = nil) {
        self.name = name
        self.icon = icon
        self.desktopEntry = desktopEntry
    }

    /// The job's own keys, each falling back to the manifest's.
    public static func of(_ job: JobDefinition, manifest: Manifest?) -> AppIdentity {
        let own = job.extra
        let shipped = manifest?.app ?? AppIdentity()
        return AppIdentity(name: own.description ?? shipped.name, icon: own.icon ?? shipped.icon,
                           desktopEntry: own.desktopEntry ?? shipped.desktopEntry)
    }

    /// Whether a `.desktop` file would add anything: an entry is named and the name or icon is missing.
    public var wantsDesktopFile: Bool { desktopEntry != nil && (name == nil || icon == nil) }

    /// The name and icon a `.desktop` file gives, where none was said.
    public func filling(from file: DesktopEntryFile) -> AppIdentity {
        AppIdentity(name: name ?? file.name, icon: icon ?? file.icon, desktopEntry: desktopEntry)
    }

    /// Why `value` is not a desktop entry name (`DesktopEntry=`), or nil when it is one.
    public static func desktopEntryProblem(_ value: String) -> String? {
        guard value.hasSuffix(".desktop") || value.contains("/")
            || value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        return "\(TextBytes.quoted(value)) is not a desktop entry name; write the file's name without "
            + ".desktop (e.g. org.example.Photos)"
    }
}

/// The two keys of a `.desktop` file (the Desktop Entry Specification) a notification uses:
/// the `[Desktop Entry]` group's unlocalized `Name=` and `Icon=`.
public struct DesktopEntryFile: Hashable, Sendable {
    public var name: String?
    public var icon: String?

    public init(name: String? = nil, icon: String? = nil) {
        self.name = name
        self.icon = icon
    }

    /// Reads `Name=` and `Icon=` of the `[Desktop Entry]` group; other groups, comments and
    /// localized keys (`Name[de]=`) are skipped. Values are unescaped (`\s`, `\n`, `\t`, `\r`, `\\`).
    public static func parse(_ text: String) -> DesktopEntryFile {
        var file = DesktopEntryFile()
        var inEntry = false
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                inEntry = line.trimmingSuffix(" ") == "[Desktop Entry]"
                continue
            }
            guard inEntry, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingSuffix(" ")
            let value = unescaped(line[line.index(after: equals)...].drop { $0 == " " })
            guard !value.isEmpty else { continue }
            if key == "Name", file.name == nil { file.name = value }
            if key == "Icon", file.icon == nil { file.icon = value }
        }
        return file
    }

    private static func unescaped(_ value: Substring) -> String {
        var result = ""
        var escaping = false
        for character in value {
            if escaping {
                switch character {
                case "s": result.append(" ")
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                default: result.append(character)
                }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}

private extension Substring {
    func trimmingSuffix(_ character: Character) -> Substring {
        var end = endIndex
        while end > startIndex, self[index(before: end)] == character { end = index(before: end) }
        return self[startIndex..<end]
    }
}

extension String {
    /// The string, or nil when it is empty (an empty assignment resets a key to its default).
    var nonEmpty: String? { isEmpty ? nil : self }
}
