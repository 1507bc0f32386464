// SPDX-License-Identifier: Apache-2.0
import AgentCore
import CShim
import Glibc

/// Answers the core's questions about plugins and users from the real system.
///
/// Used on the daemon's loop thread (and by `agentctl check`), so it is deliberately not
/// `Sendable`: its user cache is unsynchronised.
public final class SystemFactsProbe: SystemFacts {
    /// Users known to exist. Only positive answers are kept: a package creates its user in its
    /// postinst, after dpkg has already unpacked (and the watcher reported) its job file, and a
    /// remembered "no such user" would keep that job refused until the daemon restarts.
    private var knownUsers: Set<String> = []
    /// Groups known to exist, kept the same way.
    private var knownGroups: Set<String> = []

    public init() {}

    /// Asked once per probe: a wake-up alarm is a kernel and capability question that does
    /// not change while it runs.
    private lazy var alarmRefusal: String?? = nil
    private var memory: ByteSize?? = nil
    private var tasks: Int?? = nil

    /// Tries `timerfd_create(CLOCK_REALTIME_ALARM)` (closed at once).
    public func wakeAlarmRefusal() -> String? {
        if let known = alarmRefusal { return known }
        let fd = cshim_alarm_timerfd_create()
        let answer: String?
        if fd >= 0 {
            close(fd)
            answer = nil
        } else {
            let code = errno
            answer = code == EPERM ? "the agent lacks CAP_WAKE_ALARM"
                : code == EINVAL || code == ENOTSUP ? "the kernel has no alarm timers"
                : "timerfd_create(CLOCK_REALTIME_ALARM): \(SystemError.text(code))"
        }
        alarmRefusal = .some(answer)
        return answer
    }

    /// `stat` (following symlinks) for type, owner and mode; `access(X_OK)` for whether the
    /// agent may execute it.
    public func plugin(at path: String) -> PluginStatus {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return .missing }
            return .unreadable(message: SystemError.text(code))
        }
        let facts = FileFacts(ownerUID: info.st_uid, mode: info.st_mode, groupID: info.st_gid)
        return .present(facts, executable: access(path, X_OK) == 0)
    }

    /// Whether the user database (NSS: files, LDAP, systemd's dynamic users…) knows `name`.
    public func userExists(_ name: String) -> Bool {
        if knownUsers.contains(name) { return true }
        guard !name.isEmpty else { return false }
        let exists = Self.withPasswd(lookup: { entry, buffer, size, result in
            getpwnam_r(name, entry, buffer, size, result)
        }, { _ in true }) ?? false
        if exists { knownUsers.insert(name) }
        return exists
    }

    /// Whether the group database (NSS) knows `name`.
    public func groupExists(_ name: String) -> Bool {
        if knownGroups.contains(name) { return true }
        guard !name.isEmpty else { return false }
        let exists = Self.withEntry(group(), sizeHint: Int32(_SC_GETGR_R_SIZE_MAX), lookup: { entry, buffer, size, result in
            getgrnam_r(name, entry, buffer, size, result)
        }, { _ in true }) ?? false
        if exists { knownGroups.insert(name) }
        return exists
    }

    /// The user database's name for `uid`, or nil when it has none.
    public func userName(uid: UInt32) -> String? {
        Self.withPasswd(lookup: { entry, buffer, size, result in
            getpwuid_r(uid, entry, buffer, size, result)
        }, { entry in
            entry.pw_name.map { String(cString: $0) }
        }) ?? nil
    }

    /// The uid and every group of `name` (getpwnam_r, getgrouplist), for whether it may run a plugin.
    public func userIdentity(_ name: String) -> UserIdentity? {
        guard let (uid, gid) = Self.withPasswd(lookup: { entry, buffer, size, result in
            getpwnam_r(name, entry, buffer, size, result)
        }, { entry in (entry.pw_uid, entry.pw_gid) }) else { return nil }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, gid, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            _ = getgrouplist(name, gid, &groups, &count)
        }
        return UserIdentity(uid: uid, groups: Array(groups.prefix(Int(max(0, count)))) + [gid])
    }

    /// Physical memory: `_SC_PHYS_PAGES` pages of `_SC_PAGESIZE`, read once (as systemd reads it
    /// for `MemoryMax=50%`).
    public func physicalMemory() -> ByteSize? {
        if let known = memory { return known }
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), pageSize = sysconf(Int32(_SC_PAGESIZE))
        let answer = pages > 0 && pageSize > 0
            ? ByteSize(bytes: UInt64(pages).multipliedReportingOverflow(by: UInt64(pageSize)).partialValue) : nil
        memory = .some(answer)
        return answer
    }

    /// systemd's `system_tasks_max()`: the smaller of `kernel.threads-max` and `kernel.pid_max`,
    /// less one (pid 0 is never a task), read once.
    public func systemTasksMax() -> Int? {
        if let known = tasks { return known }
        let limits = ["/proc/sys/kernel/threads-max", "/proc/sys/kernel/pid_max"].compactMap { path in
            SmallFile.integer(path)
        }.filter { $0 > 1 }
        let answer = limits.min().map { $0 - 1 }
        tasks = .some(answer)
        return answer
    }

    /// Forgets the cached users and groups (for a full reload, e.g. on SIGHUP).
    public func forgetCachedUsers() {
        knownUsers.removeAll()
        knownGroups.removeAll()
    }

    /// The effective user the agent runs as, with its name from the user database, or the
    /// number as the name when it has none (a container without an entry for its uid).
    public static func currentUser() -> (uid: UInt32, name: String) {
        let uid = geteuid()
        let name = withPasswd(lookup: { entry, buffer, size, result in
            getpwuid_r(uid, entry, buffer, size, result)
        }, { entry in
            entry.pw_name.map { String(cString: $0) }
        }) ?? nil
        return (uid, name ?? String(uid))
    }

    /// A passwd lookup through ``withEntry(_:sizeHint:lookup:_:)``.
    private static func withPasswd<T>(
        lookup: (UnsafeMutablePointer<passwd>, UnsafeMutablePointer<CChar>, Int,
                 UnsafeMutablePointer<UnsafeMutablePointer<passwd>?>) -> Int32,
        _ read: (passwd) -> T
    ) -> T? {
        withEntry(passwd(), sizeHint: Int32(_SC_GETPW_R_SIZE_MAX), lookup: lookup, read)
    }

    /// A reentrant user or group database lookup (`getpwnam_r`, `getgrnam_r`…) with a buffer that
    /// grows on `ERANGE`; `read` sees the entry while its strings still live in the buffer. nil
    /// when there is no such entry or the lookup failed.
    private static func withEntry<Entry, T>(
        _ empty: Entry, sizeHint: Int32,
        lookup: (UnsafeMutablePointer<Entry>, UnsafeMutablePointer<CChar>, Int,
                 UnsafeMutablePointer<UnsafeMutablePointer<Entry>?>) -> Int32,
        _ read: (Entry) -> T
    ) -> T? {
        var size = 1024
        let suggested = sysconf(sizeHint)
        if suggested > 0 { size = suggested }
        while size <= 1 << 20 {
            var buffer = [CChar](repeating: 0, count: size)
            var tooSmall = false
            let answer = buffer.withUnsafeMutableBufferPointer { raw -> T? in
                guard let base = raw.baseAddress else { return nil }
                var entry = empty
                var result: UnsafeMutablePointer<Entry>?
                let status = lookup(&entry, base, raw.count, &result)
                if status == ERANGE { tooSmall = true }
                // The entry's strings point into the buffer: read them before it goes away.
                guard status == 0, result != nil else { return nil }
                return read(entry)
            }
            if !tooSmall { return answer }
            size *= 2
        }
        return nil
    }
}
