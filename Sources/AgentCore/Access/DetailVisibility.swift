// SPDX-License-Identifier: Apache-2.0
/// What a reader of the control socket sees of a job (DESIGN §9): everything when it is an
/// administrator (root, group `agentd`), is named by the job's manifest (`Users=`, `Groups=`)
/// or could read the job's file itself; otherwise only what the file would tell — identifier,
/// kind, state, times, stop reasons — and never its output lines, `STATUS=`/`RESULT=` text,
/// titles, subtitles, checkpoints or arguments.
public enum DetailVisibility {
    /// `file`: the job file's facts (nil when no file defines the job any more: its details
    /// are then the administrators' and the manifest's only). `owner`: the job's manifest.
    public static func seesDetails(_ requester: Requester, file: JobFileFacts?, owner: NamedManifest?) -> Bool {
        if requester.isAdministrator { return true }
        if let owner, requester.isNamed(by: owner.manifest) || requester.runManifest == owner.name { return true }
        guard let file else { return false }
        return file.isReadable(by: requester.identity)
    }
}

/// A job file's owner, group and mode as the agent read it, and whether it was reached through
/// a link into a directory not everyone can enter (then only its readers' own `agentctl check`
/// should show its text). Kept current: a chmod or chown is an inotify event that re-reads it.
public struct JobFileFacts: Sendable, Hashable {
    public var facts: FileFacts
    public var reachableByEveryone: Bool

    public init(facts: FileFacts, reachableByEveryone: Bool = true) {
        self.facts = facts
        self.reachableByEveryone = reachableByEveryone
    }

    /// As the kernel decides read permission: the owner's bits for the owner, else the group's
    /// for a member of the file's group, else the others' (ACLs are not looked at). A file
    /// reached through a link into a private directory is readable by nobody here.
    public func isReadable(by user: UserIdentity) -> Bool {
        if user.uid == 0 { return true }
        guard reachableByEveryone else { return false }
        let mode = facts.mode
        if facts.ownerUID == user.uid { return mode & 0o400 != 0 }
        if user.groups.contains(facts.groupID) { return mode & 0o040 != 0 }
        return mode & 0o004 != 0
    }
}
