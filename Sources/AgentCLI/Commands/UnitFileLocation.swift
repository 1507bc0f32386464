// SPDX-License-Identifier: Apache-2.0
import AgentPOSIX
import Glibc

/// Where systemd reads a unit from, for `agentctl convert`: the unit file that is in force and
/// its drop-ins (`systemctl edit NAME` writes `/etc/systemd/system/NAME.d/override.conf`), so
/// that a converted job keeps what the administrator changed.
enum UnitFileLocation {
    /// systemd's system unit directories, the one that wins first.
    static let systemDirectories = ["/etc/systemd/system", "/run/systemd/system", "/usr/local/lib/systemd/system",
                                    "/lib/systemd/system", "/usr/lib/systemd/system"]

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

    /// `name`'s drop-ins in the order systemd applies them: every `*.conf` of `name.d/` (and, for
    /// an instance `foo@bar.timer`, of `foo@.timer.d/`) in `directories`, sorted by file name, a
    /// file hiding one of the same name in a later directory.
    static func dropIns(of name: String, in directories: [String]) -> [String] {
        var names = [name]
        if let at = name.firstIndex(of: "@"), let dot = name.lastIndex(of: "."), at < dot,
           name.index(after: at) < dot {
            names.append(String(name[...at]) + String(name[dot...]))
        }
        var chosen: [String: String] = [:]
        for directory in directories.reversed() {
            for unitName in names.reversed() {
                let path = directory + "/" + unitName + ".d"
                for file in SmallFile.entries(path) where file.hasSuffix(".conf") {
                    chosen[file] = path + "/" + file
                }
            }
        }
        return chosen.keys.sorted().compactMap { chosen[$0] }
    }

    private static func isLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }
}
