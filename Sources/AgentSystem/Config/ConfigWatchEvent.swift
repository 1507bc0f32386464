// SPDX-License-Identifier: Apache-2.0
/// What changed in the config directory, as the watcher reports it to the daemon.
///
/// Paths are relative to the config directory (`agentd.conf`, `manifests.d/a.manifest`,
/// `jobs.d/backup.job`). Events are hints to re-read: the file system is the truth, so a
/// `changed` for a file that is gone again by the time it is read simply reads as gone.
public enum ConfigWatchEvent: Sendable, Hashable {
    /// The file was created, written and closed, renamed into place, linked, or had its owner or
    /// mode changed: re-read it.
    case changed(relativePath: String)
    /// The file was deleted or renamed away: forget it.
    case removed(relativePath: String)
    /// A whole directory appeared, disappeared or was replaced: `""` for the config directory
    /// itself, `"manifests.d"` or `"jobs.d"`. Re-read every file under it and forget the ones
    /// that are no longer there — unless the directory itself is missing, in which case what was
    /// read from it stays in force until it is back. Files created in a new directory before its
    /// watch existed are only found this way. When the config directory comes back (or is
    /// replaced, also by a symlink), the watcher watches it again and sends all three.
    case rescan(directory: String)
    /// The kernel's event queue overflowed and events were lost: rescan everything.
    case overflow
}
