// SPDX-License-Identifier: Apache-2.0
/// What the plugin may pass through on its way to DEST, and what it may write as DEST.part, so that
/// it never follows a link, or writes a file, that someone other than root and the run's user
/// (its effective uid) put there. The plugin-safety rule of DESIGN §3, applied to a download:
///
/// - every directory walked is owned by root or the run's user and writable by nobody else (no
///   group or other write bit: an ACL granting write shows in the group bits), except
/// - a sticky directory owned by root or the run's user (`/tmp`, mode 1777): there the kernel lets
///   only an entry's owner rename or remove it, and everything the plugin takes from it is held to
///   the owner rule itself (directories and links must be root's or the run's, DEST.part the run's);
/// - a symbolic link on the way is followed only when root or the run's user made it;
/// - DEST.part is resumed only when it is a regular file of the run's user with no other name
///   (one link): a second name could be another user's file, and nothing else is ever truncated.
public enum PathSafetyRule {
    public enum Kind: Equatable, Sendable {
        case directory
        case symbolicLink
        case regularFile
        /// Anything else, named as `ls` would ("fifo", "socket", "device").
        case other(String)
    }

    /// What `fstat` says about one step of the path.
    public struct Facts: Equatable, Sendable {
        public var kind: Kind
        public var ownerUID: UInt32
        /// The permission bits and S_ISVTX (`st_mode & 0o7777`).
        public var mode: UInt32
        public var links: UInt64

        public init(kind: Kind, ownerUID: UInt32, mode: UInt32, links: UInt64 = 1) {
            self.kind = kind
            self.ownerUID = ownerUID
            self.mode = mode
            self.links = links
        }
    }

    static let sticky: UInt32 = 0o1000
    static let writableByOthers: UInt32 = 0o022

    /// Why the directory `path` may not be walked through, or nil.
    public static func directoryProblem(_ facts: Facts, path: String, runUID: UInt32) -> String? {
        guard isTrusted(facts.ownerUID, runUID: runUID) else {
            return "\(path) belongs to uid \(facts.ownerUID), neither root nor the run's user (uid \(runUID)), "
                + "who could swap what is in it for a link: download into a directory of root's or uid \(runUID)'s, "
                + "or run the job as that directory's owner (User=)"
        }
        if facts.mode & writableByOthers != 0 && facts.mode & sticky == 0 {
            return "\(path) is writable by others than root and the run's user (mode \(octal(facts.mode))), "
                + "who could plant a link in it: run chmod go-w \(path) (or chmod +t, as /tmp is), or download elsewhere"
        }
        return nil
    }

    /// Why the symbolic link `path` may not be followed, or nil.
    public static func linkProblem(_ facts: Facts, path: String, runUID: UInt32) -> String? {
        guard !isTrusted(facts.ownerUID, runUID: runUID) else { return nil }
        return "\(path) is a symbolic link made by uid \(facts.ownerUID), neither root nor the run's user "
            + "(uid \(runUID)): it is not followed"
    }

    /// Why an existing DEST.part at `path` may not be resumed or written, or nil. It is refused,
    /// never truncated: it may be someone else's file.
    /// Why DEST, already there, could not be replaced by the finished download: in a sticky
    /// directory (as /tmp) only its owner (or root) may rename over it, and the rename comes only
    /// after the whole download. nil when it can be replaced, or is not there.
    public static func destinationProblem(_ facts: Facts?, directory: Facts, path: String, runUID: UInt32) -> String? {
        guard let facts, runUID != 0, directory.mode & 0o1000 != 0,
              facts.ownerUID != runUID, directory.ownerUID != runUID else { return nil }
        return "\(path) belongs to uid \(facts.ownerUID), and its directory is sticky: the run's user (uid \(runUID)) "
            + "could not replace it with the download; remove it, or choose another DEST"
    }

    public static func partFileProblem(_ facts: Facts, path: String, runUID: UInt32) -> String? {
        let refused = "refused, not written"
        switch facts.kind {
        case .symbolicLink:
            return "\(path) is a symbolic link: \(refused) (the plugin never follows a link it did not make); remove it"
        case .directory:
            return "\(path) is a directory, not a regular file: \(refused)"
        case .other(let name):
            return "\(path) is a \(name), not a regular file: \(refused); remove it"
        case .regularFile:
            break
        }
        if facts.ownerUID != runUID {
            return "\(path) belongs to uid \(facts.ownerUID), not the run's user (uid \(runUID)): \(refused); "
                + "remove it to download again"
        }
        if facts.links != 1 {
            return "\(path) has \(facts.links) hard links, so another name may be another user's file: \(refused); "
                + "remove it to download again"
        }
        return nil
    }

    static func isTrusted(_ owner: UInt32, runUID: UInt32) -> Bool {
        owner == 0 || owner == runUID
    }

    static func octal(_ mode: UInt32) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
