// SPDX-License-Identifier: Apache-2.0
/// Ownership and mode of a file as the kernel reported them (from `stat`), so the pure core can
/// apply cron.d's ownership rule without touching the file system.
public struct FileFacts: Sendable, Hashable {
    public var ownerUID: UInt32
    /// `st_mode`: file type and permission bits.
    public var mode: UInt32
    /// The file's group (for whether a job's user may run it).
    public var groupID: UInt32

    public init(ownerUID: UInt32, mode: UInt32, groupID: UInt32 = 0) {
        self.ownerUID = ownerUID
        self.mode = mode
        self.groupID = groupID
    }

    public var isRegularFile: Bool { mode & 0o170000 == 0o100000 }
    public var isDirectory: Bool { mode & 0o170000 == 0o040000 }
    public var isGroupOrWorldWritable: Bool { mode & 0o022 != 0 }
    public var isExecutableByOwner: Bool { mode & 0o100 != 0 }
    public var isExecutableByAnyone: Bool { mode & 0o111 != 0 }
    public var isWorldReadable: Bool { mode & 0o004 != 0 }
}

/// One file of the config directory as read from disk: where it is (relative to the config
/// directory, e.g. `jobs.d/backup.job`), what it holds and who owns it.
public struct ConfigSource: Sendable {
    public var relativePath: String
    public var bytes: [UInt8]
    public var facts: FileFacts
    /// Whether anyone may read the file (world-readable, and not reached through a symlink into
    /// directories others cannot enter): only then may diagnostics that the control socket's
    /// readers see quote its text.
    public var contentIsPublic: Bool

    /// For a file whose name is a symbolic link: its absolute path and every directory and link
    /// resolving it went through, for ``PathChainRule``. Empty for a plain file.
    public var linkSteps: [PathStep]
    public var linkPath: String

    /// `contentIsPublic` defaults to what the file's own mode says.
    public init(relativePath: String, bytes: [UInt8], facts: FileFacts, contentIsPublic: Bool? = nil,
                linkPath: String = "", linkSteps: [PathStep] = []) {
        self.relativePath = relativePath
        self.bytes = bytes
        self.facts = facts
        self.contentIsPublic = contentIsPublic ?? facts.isWorldReadable
        self.linkPath = linkPath
        self.linkSteps = linkSteps
    }
}

/// What the system says about a plugin executable named by `Exec=` (or a drop-in script).
public enum PluginStatus: Sendable, Hashable {
    /// It exists; `facts` from stat() following symlinks; `executable` from access(X_OK).
    case present(FileFacts, executable: Bool)
    case missing
    /// stat() failed for another reason (ELOOP, EACCES…), described by `message`.
    case unreadable(message: String)
}

/// Read-only questions the core asks of the system while validating config. The daemon answers
/// them from the real file system and user database; tests answer from a table.
public protocol SystemFacts {
    func plugin(at path: String) -> PluginStatus
    func userExists(_ name: String) -> Bool
    /// The name of the user with `uid`, or nil when the user database has none (a drop-in
    /// script runs as its file's owner).
    func userName(uid: UInt32) -> String?
    /// The uid and groups of the user `name`, or nil when unknown.
    func userIdentity(_ name: String) -> UserIdentity?
    func wakeAlarmRefusal() -> String?
    /// Whether the group database knows `name` (a manifest's `Groups=`).
    func groupExists(_ name: String) -> Bool
    /// The machine's physical memory, what `MemoryMax=50%` is a share of; nil when unknown.
    func physicalMemory() -> ByteSize?
    /// The most tasks the machine can have at once, what `TasksMax=10%` is a share of; nil
    /// when unknown.
    func systemTasksMax() -> Int?
}

extension SystemFacts {
    /// Why this machine cannot arm a wake-up alarm for `WakeSystem=` (no CAP_WAKE_ALARM, no
    /// alarm timers), or nil when it can. By default it can.
    public func wakeAlarmRefusal() -> String? { nil }

    /// Without a group database every group is taken to exist (no warning).
    public func groupExists(_ name: String) -> Bool { true }

    /// Unknown by default: a percentage limit is then an error that asks for a size.
    public func physicalMemory() -> ByteSize? { nil }
    public func systemTasksMax() -> Int? { nil }

    /// Only root is known without a user database.
    public func userName(uid: UInt32) -> String? { uid == 0 ? "root" : nil }
    public func userIdentity(_ name: String) -> UserIdentity? { name == "root" ? UserIdentity(uid: 0, groups: [0]) : nil }
}
