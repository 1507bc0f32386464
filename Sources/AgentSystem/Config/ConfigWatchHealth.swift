// SPDX-License-Identifier: Apache-2.0
/// What the config watcher can see, for `status`: a watcher that silently watches nothing is
/// the failure an administrator must be able to spot.
public struct ConfigWatchHealth: Sendable, Hashable {
    /// Config directories watched now: the config directory, `manifests.d`, `jobs.d` (at most 3).
    public var watchedDirectories: Int
    /// Absolute paths of those that are missing (not there, or not watchable); while one is
    /// missing, the config last read from it stays in force.
    public var missing: [String]
    /// Whether the config directory's parent is watched, so that the directory is seen coming
    /// back at once (otherwise within a second).
    public var parentWatched: Bool

    public init(watchedDirectories: Int, missing: [String], parentWatched: Bool) {
        self.watchedDirectories = watchedDirectories
        self.missing = missing
        self.parentWatched = parentWatched
    }
}
