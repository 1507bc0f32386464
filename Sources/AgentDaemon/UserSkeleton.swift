// SPDX-License-Identifier: Apache-2.0
import AgentSystem
import Glibc

/// The config directory `agentd --user` creates on its first start: `agentd.conf`
/// with every setting commented out, `manifests.d/local.manifest` permitting `local.*`, and an
/// empty `jobs.d/`. Only a config directory that does not exist yet is created: what a user
/// removed from an existing one stays removed.
enum UserSkeleton {
    static let settings = """
        # agentd --user: the settings of your own background-task agent. Every key is optional;
        # the values shown are the defaults. Changes are picked up live: no reload is needed.
        # Jobs go into jobs.d/ (see agentd.job(5)), manifests into manifests.d/; every job runs
        # as you. Apps may also ship read-only definitions in $XDG_DATA_DIRS/agentd/ (e.g.
        # /usr/share/agentd/jobs.d/); a file here with the same name replaces one of those.
        [Agent]
        # Runs at once, all kinds.
        #MaxConcurrent=4
        # Discretionary (refresh and processing) launches per day, refilled at local midnight.
        #DailyBudget=48
        # At most one triggered launch per identifier this often; triggers meanwhile merge.
        #TriggerSpacing=15min
        #BatteryLow=20%
        #BatteryCritical=5%
        # Identifiers you forbid (wildcards allowed), e.g. Deny=com.example.tracker.*
        #Deny=

        """

    static let localManifest = """
        # Your own jobs: identifiers local.NAME (drop-in scripts in jobs.d/ are local.NAME too).
        # They are not rationed (DailyBudget=infinity), as your crontab and systemd --user timers
        # never were; set DailyBudget=N to give local.* a daily budget. Apps' identifiers keep
        # the budget of their own manifests (agentd.conf's DailyBudget= by default).
        [Manifest]
        PermittedIdentifiers=local.*
        BackgroundModes=refresh processing continued
        DailyBudget=infinity

        """

    /// Creates the skeleton when `directory` does not exist; returns what was created (nil: it
    /// existed). Throws with the path and the reason when it cannot be created.
    static func createIfMissing(_ directory: String) throws -> String? {
        var info = stat()
        if lstat(directory, &info) == 0 { return nil }
        guard errno == ENOENT else {
            throw SkeletonFailure(description: "cannot look at \(directory): \(String(cString: strerror(errno)))")
        }
        // Never group- or world-writable, whatever the umask: the agent refuses such files.
        try FileSystem.makeDirectories(directory + "/manifests.d", mode: 0o755)
        try FileSystem.makeDirectories(directory + "/jobs.d", mode: 0o755)
        try FileSystem.writeFile(directory + "/agentd.conf", Array(settings.utf8), mode: 0o644)
        try FileSystem.writeFile(directory + "/manifests.d/local.manifest", Array(localManifest.utf8), mode: 0o644)
        for file in ["/agentd.conf", "/manifests.d/local.manifest"] { chmod(directory + file, 0o644) }
        return "created \(directory) with agentd.conf, manifests.d/local.manifest (local.*) and jobs.d/"
    }
}

/// The config directory could not be looked at.
struct SkeletonFailure: Error, CustomStringConvertible {
    var description: String
}
