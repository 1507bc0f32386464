// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentPOSIX
import Glibc

/// Reading what `agentctl convert` converts: timers with their services, crontabs, run-parts
/// directories, and the machine's whole set for `--system`. Every file is read up to
/// `readLimit` and no further (`/dev/zero` ends there, with a message).
enum ConvertSources {
    static let readLimit = 1 << 20

    static func convert(_ path: String, prefix: String, userCrontab: Bool, into outcome: inout ConvertOutcome) {
        let name = FileSystem.baseName(of: path)
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            convertDirectory(path, prefix: prefix, into: &outcome)
            return
        }
        if name.hasSuffix(".timer") {
            convertTimer(path, name: String(name.dropLast(6)), prefix: prefix, into: &outcome)
            return
        }
        if name.hasSuffix(".service") {
            outcome.failures.append("\(path): give the .timer that starts it (agentctl convert \(String(path.dropLast(8))).timer)")
            return
        }
        guard let text = read(path, into: &outcome) else { return }
        // Against the working directory: `convert cron.d/x` from /etc, and `convert x` from
        // /etc/cron.d, name a cron.d file as much as /etc/cron.d/x does.
        let inCronD = !userCrontab && FileSystem.absolute(path).contains("/cron.d/")
        let withUser = !userCrontab && (name == "crontab" || inCronD)
        if withUser, let ignored = systemCrontabIgnored(path, name: name, inCronD: inCronD) {
            outcome.failures.append("\(path): not converted: cron ignores it: \(ignored)")
            return
        }
        var owner: String?
        if !withUser {
            switch crontabUser(path) {
            case .success(let user): owner = user
            case .failure(let ignored):
                outcome.failures.append("\(path): \(ignored.message)")
                return
            }
        }
        let result = CronConverter.convert(text, name: name, source: path, withUser: withUser, owner: owner, prefix: prefix,
                                           underSystemd: systemdIsInit)
        outcome.jobs += result.jobs
        outcome.failures += result.errors
        outcome.notes += result.notes
        let lines = result.jobs.flatMap { job in
            job.sources.compactMap { $0.hasPrefix(path + ":") ? (String($0.dropFirst(path.count + 1)), ConvertReplacement.JobRef(job)) : nil }
        }
        if !lines.isEmpty {
            let edit = withUser ? "" : " (\(crontabEdit(owner: owner, byUID: geteuid(), named: userName(geteuid()))))"
            outcome.replaced.append(ConvertReplacement(parts: lines) { kept in
                "comment out line\(kept.count == 1 ? "" : "s") \(kept.joined(separator: ", ")) of \(path)" + edit
            })
        }
    }

    /// Where `systemctl enable` links a timer that starts at boot.
    static let enabledTimers = "/etc/systemd/system/timers.target.wants"

    /// Whether systemd is this machine's init: the test Debian's cron lines and scripts make
    /// (`test -e /run/systemd/system`), and sd_booted(3)'s. Where it is not, an enabled timer has
    /// never run, and the cron lines guarded by that test are the ones that do the work.
    static var systemdIsInit: Bool { access("/run/systemd/system", F_OK) == 0 }

    /// The machine's enabled timers, `/etc/crontab`, `/etc/cron.d/*` and users' crontabs; with
    /// `notes`, why the enabled timers are left out where systemd is not init.
    static func system(notes: inout [String]) -> [String] {
        var paths: [String] = []
        let timers = SmallFile.entries(enabledTimers).filter { $0.hasSuffix(".timer") }.sorted()
        if !systemdIsInit && !timers.isEmpty {
            notes.append("left out: \(timers.joined(separator: ", ")) in \(enabledTimers): systemd is not this "
                + "machine's init (no /run/systemd/system), so they never ran here; agentctl convert FILE.timer "
                + "converts one all the same")
        }
        for name in timers where systemdIsInit {
            // An instance has no file of its own: convert reads its template beside the name.
            if let path = UnitFileLocation.file(name, in: UnitFileLocation.systemDirectories)
                ?? (name.contains("@") ? "/etc/systemd/system/" + name : nil) {
                paths.append(path)
            }
        }
        if access("/etc/crontab", R_OK) == 0 { paths.append("/etc/crontab") }
        for name in SmallFile.entries("/etc/cron.d") where DropInScript.hasRunPartsName(name) {
            paths.append("/etc/cron.d/" + name)
        }
        for name in SmallFile.entries("/var/spool/cron/crontabs") where !name.hasPrefix(".") {
            paths.append("/var/spool/cron/crontabs/" + name)
        }
        return paths
    }

    /// Notes for the timers `--system` leaves to systemd, each with the path that converts it:
    /// those a unit other than timers.target pulls in (sysstat-collect.timer runs while
    /// sysstat.service does) and those a package links into timers.target itself
    /// (systemd-tmpfiles-clean.timer, under /lib). Generators' timers come from crontabs that
    /// `--system` reads itself.
    static func timersLeftToSystemd(in directories: [String] = UnitFileLocation.systemDirectories,
                                    enabled: String = enabledTimers) -> [String] {
        let converted = Set(SmallFile.entries(enabled))
        var notes: [String: String] = [:]
        let generators = ["/systemd/generator", "/systemd/generator.early", "/systemd/generator.late"]
        for directory in directories where !generators.contains(where: directory.hasSuffix) {
            for wants in SmallFile.entries(directory) where wants.hasSuffix(".wants") || wants.hasSuffix(".requires") {
                let list = directory + "/" + wants
                guard list != enabled else { continue }
                let unit = String(wants[..<(wants.lastIndex(of: ".") ?? wants.endIndex)])
                for name in SmallFile.entries(list) where name.hasSuffix(".timer") && !converted.contains(name) && notes[name] == nil {
                    let how = unit == "timers.target" ? "linked into timers.target by its package in \(directory)"
                        : "started with \(unit)"
                    let path = UnitFileLocation.file(name, in: directories) ?? list + "/" + name
                    // A masked timer never runs: there is nothing to leave to systemd or to convert.
                    guard !UnitFileLocation.isMasked(path) else { continue }
                    notes[name] = "left to systemd: \(name) (\(how)); agentctl convert \(path) converts it"
                }
            }
        }
        return notes.keys.sorted().compactMap { notes[$0] }
    }

    /// The text of `path`, at most `readLimit` bytes; nil with a failure that says why.
    static func read(_ path: String, into outcome: inout ConvertOutcome) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            outcome.failures.append("cannot read \(path): \(SystemError.text(errno))")
            return nil
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while bytes.count <= readLimit {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                outcome.failures.append("cannot read \(path): \(SystemError.text(errno))")
                return nil
            }
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        if bytes.count > readLimit {
            outcome.failures.append("\(path): more than 1 MiB; convert reads at most \(readLimit) bytes of a file, "
                + "and no timer or crontab is that long: is it the right file?")
            return nil
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The unit file `name` (`foo@bar.service`) with the specifiers systemd fills in the same way
    /// everywhere filled in (`SystemdSpecifiers`).
    static func unit(_ text: String, path: String, name: String) -> UnitFile? {
        let expanded = SystemdSpecifiers(unitName: name).expand(text)
        return UnitFileParser.parse(Array(expanded.utf8), path: path, expectedSection: "[Timer]").value
    }

    /// How whoever runs `convert` edits `owner`'s crontab: only root may name another user
    /// (`crontab -u` by anyone else: "must be privileged to use -u").
    static func crontabEdit(owner: String?, byUID uid: uid_t, named name: String?) -> String {
        if uid == 0 { return "crontab -e -u \(owner ?? "USER")" }
        if let owner, owner == name { return "crontab -e" }
        return "as root: crontab -e -u \(owner ?? "USER")"
    }

    /// Why cron ignores a system crontab (`/etc/crontab`, a `cron.d` file), or nil: a `cron.d`
    /// name outside run-parts' rule (`x.dpkg-old`, `backup.disabled`); and, for the files cron
    /// reads under /etc, one another user than root owns, or that group or others may write
    /// (cron(8)). A copy elsewhere, being prepared, is judged by its name alone.
    static func systemCrontabIgnored(_ path: String, name: String, inCronD: Bool) -> String? {
        if inCronD, !DropInScript.hasRunPartsName(name) {
            return "its name breaks run-parts' rule ^[A-Za-z0-9_-]+$ (an editor's or dpkg's leftover)"
        }
        guard FileSystem.absolute(path).hasPrefix("/etc/") else { return nil }
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        // cron's rule is agentd's own for config files (cron.d's): root's, writable by root alone.
        let facts = FileFacts(ownerUID: info.st_uid, mode: info.st_mode, groupID: info.st_gid)
        return OwnershipRule.problem(with: facts, absolutePath: FileSystem.absolute(path), agentUID: 0, agentUserName: "root")
            .map { "it " + $0 + " if it is meant to run" }
    }

    struct IgnoredByCron: Error {
        var message: String
    }

    /// The user a user crontab runs as. In cron's spool (`…/crontabs/NAME`) it is NAME, as cron
    /// reads it, and cron ignores the file unless NAME or root owns it; elsewhere (a
    /// `crontab -l` saved) the file's owner.
    static func crontabUser(_ path: String) -> Result<String?, IgnoredByCron> {
        let name = FileSystem.baseName(of: path)
        guard FileSystem.baseName(of: FileSystem.parentDirectory(of: FileSystem.absolute(path))) == "crontabs" else {
            return .success(ownerName(path))
        }
        guard let entry = getpwnam(name) else {
            return .failure(IgnoredByCron(message: "cron ignores it: there is no user \(name), and a crontab in cron's spool runs as the user it is named for"))
        }
        var info = stat()
        guard stat(path, &info) == 0 else { return .success(name) }
        let uid = entry.pointee.pw_uid
        guard info.st_uid == uid || info.st_uid == 0 else {
            return .failure(IgnoredByCron(message: "cron ignores it: it is owned by uid \(info.st_uid), neither \(name) nor root (cron's WRONG FILE OWNER); run chown \(name) \(path) if it is \(name)'s"))
        }
        return .success(name)
    }

    static func ownerName(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return userName(info.st_uid)
    }

    static func userName(_ uid: uid_t) -> String? {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return nil }
        return String(cString: name)
    }

    /// Where systemd would find a bare command name.
    static func findInPath(_ name: String) -> String? {
        for directory in ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"] {
            let candidate = directory + "/" + name
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
