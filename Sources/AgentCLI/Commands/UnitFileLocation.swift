// SPDX-License-Identifier: Apache-2.0
import AgentPOSIX
import Glibc

/// Where systemd reads a unit from, for `agentctl convert`: the unit file that is in force and
/// its drop-ins (`systemctl edit NAME` writes `/etc/systemd/system/NAME.d/override.conf`), so
/// that a converted job keeps what the administrator changed.
enum UnitFileLocation {
    /// systemd's system unit search path, the directory that wins first (`systemd-analyze
    /// unit-paths`, held to it by a test): `systemctl set-property`'s drop-ins (`system.control`)
    /// and generators' units are read where systemd reads them.
    static let systemDirectories = [
        "/etc/systemd/system.control", "/run/systemd/system.control", "/run/systemd/transient",
        "/run/systemd/generator.early", "/etc/systemd/system", "/etc/systemd/system.attached", "/run/systemd/system",
        "/run/systemd/system.attached", "/run/systemd/generator", "/usr/local/lib/systemd/system",
        "/lib/systemd/system", "/usr/lib/systemd/system", "/run/systemd/generator.late",
    ]

    /// The directories a unit beside `directory` is read from: all of systemd's when `directory`
    /// is one of them; else `directory` alone (a copy of another machine's units is not this one's).
    static func directories(beside directory: String) -> [String] {
        systemDirectories.contains(directory) ? systemDirectories : [directory]
    }

    /// The file in force for `name` (`apt-daily.service`), the first of `directories` that has it.
    static func file(_ name: String, in directories: [String]) -> String? {
        directories.lazy.map { $0 + "/" + name }.first { access($0, F_OK) == 0 || isLink($0) }
    }

    /// Whether `path` is masked: a link to /dev/null, or an empty file (systemd's two ways).
    static func isMasked(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return info.st_mode & S_IFMT == S_IFCHR || (info.st_mode & S_IFMT == S_IFREG && info.st_size == 0)
    }

    /// `name`'s drop-ins in the order systemd applies them: every `*.conf` of the `.d` directories
    /// `dropInDirectories` lists, sorted by file name, a file hiding one of the same name in a
    /// later directory.
    static func dropIns(of name: String, in directories: [String]) -> [String] {
        var chosen: [String: String] = [:]
        for path in dropInDirectories(of: name, in: directories) {
            for file in SmallFile.entries(path) where file.hasSuffix(".conf") && chosen[file] == nil {
                chosen[file] = path + "/" + file
            }
        }
        return chosen.keys.sorted().compactMap { chosen[$0] }
    }

    /// systemd's drop-in directories for `name`, the one that wins first (src/shared/dropin.c):
    /// in each unit directory the unit's own, its template's and its dash prefixes'
    /// (`apt-daily-upgrade.service` also reads `apt-daily-.service.d` and `apt-.service.d`), then
    /// in each the type-wide one (`service.d`), the most generic, last.
    static func dropInDirectories(of name: String, in directories: [String]) -> [String] {
        let names = dropInNames(of: name)
        var all: [String] = []
        for directory in directories {
            all += names.map { directory + "/" + $0 + ".d" }
        }
        if let type = name.split(separator: ".").last {
            all += directories.map { directory in directory + "/" + type + ".d" }
        }
        var seen: Set<String> = []
        return all.filter { seen.insert($0).inserted }
    }

    /// `name`, then its template (for an instance), then each dash prefix, more specific first,
    /// each followed in turn by its own template and prefixes, as systemd walks them.
    static func dropInNames(of name: String) -> [String] {
        guard let dot = name.lastIndex(of: ".") else { return [name] }
        let type = String(name[dot...])
        let stem = name[..<dot]
        let at = stem.firstIndex(of: "@")
        let instance = at.map { String(stem[stem.index(after: $0)...]) }
        var names = [name]
        if let at, let instance, !instance.isEmpty {
            names += dropInNames(of: String(stem[...at]) + type)
        }
        guard let prefix = dashPrefix(String(stem[..<(at ?? stem.endIndex)])) else { return names }
        return names + dropInNames(of: prefix + (instance.flatMap { $0.isEmpty ? nil : "@" + $0 } ?? "") + type)
    }

    /// `apt-daily-` for `apt-daily-upgrade`, `apt-` for `apt-daily-` (a trailing dash is chopped
    /// once); nil when no dash is left but a leading one.
    static func dashPrefix(_ prefix: String) -> String? {
        var text = Substring(prefix)
        var chopped = false
        while let dash = text.lastIndex(of: "-") {
            if dash == text.startIndex { return nil }
            if text.index(after: dash) != text.endIndex || chopped { return String(text[...dash]) }
            text = text[..<dash]
            chopped = true
        }
        return nil
    }

    private static func isLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }
}
