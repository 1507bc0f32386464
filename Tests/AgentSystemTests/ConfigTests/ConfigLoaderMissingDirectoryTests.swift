// SPDX-License-Identifier: Apache-2.0
import AgentCore
@testable import AgentPOSIX
@testable import AgentSystem
import Glibc
import Testing

/// A missing config directory is not an empty one (issue 10 item 4): what was read from it stays
/// in force until it is back, and then what vanished is handed back rather than removed at once.
struct ConfigLoaderMissingDirectoryTests {
    let job = "[Job]\nIdentifier=local.one\nExec=/bin/true\nKind=processing\n"

    func loader(_ directory: ConfigTempDirectory) -> ConfigLoader {
        var loader = ConfigLoader(configDirectory: directory.path, agentUID: getuid(),
                                  agentUserName: "test", privileged: false)
        _ = loader.loadAll()
        return loader
    }

    /// A config directory whose jobs.d holds `one.job`, and a loader that has read it.
    func loadedOneJob() throws -> (ConfigTempDirectory, ConfigLoader) {
        let directory = try ConfigTempDirectory()
        try ConfigFS.makeDirectory(directory.at("jobs.d"))
        try ConfigFS.write(directory.at("jobs.d/one.job"), job)
        return (directory, loader(directory))
    }

    @Test func aMissingJobsDirectoryKeepsItsJobsThroughRescanAndLoadAll() throws {
        var (directory, loader) = try loadedOneJob()
        #expect(loader.registry.allJobs.count == 1)

        ConfigFS.removeTree(directory.at("jobs.d"))
        #expect(loader.missingDirectories.contains("jobs.d"))
        #expect(loader.rescan(directory: "jobs.d").isEmpty)
        #expect(loader.remove(relativePath: "jobs.d/one.job").isEmpty)
        _ = loader.loadAll()
        #expect(loader.registry.allJobs.count == 1)

        // Back and empty: the vanished file is handed back for the caller to settle.
        try ConfigFS.makeDirectory(directory.at("jobs.d"))
        var vanished: [String] = []
        _ = loader.rescan(directory: "jobs.d", vanished: &vanished)
        #expect(vanished == ["jobs.d/one.job"])
        #expect(loader.registry.allJobs.count == 1)
        _ = loader.reload(relativePath: "jobs.d/one.job")
        #expect(loader.registry.allJobs.isEmpty)
    }

    @Test func underAMissingConfigDirectoryEverythingIsMissing() throws {
        let parent = try ConfigTempDirectory()
        let path = parent.at("etc")
        try ConfigFS.makeDirectory(path)
        try ConfigFS.makeDirectory(path + "/jobs.d")
        try ConfigFS.write(path + "/jobs.d/one.job", job)
        var loader = ConfigLoader(configDirectory: path, agentUID: getuid(), agentUserName: "test",
                                  privileged: false)
        _ = loader.loadAll()
        ConfigFS.removeTree(path)
        #expect(loader.missingDirectories == ["", "manifests.d", "jobs.d"])
        #expect(loader.rescan(directory: "").isEmpty)
        _ = loader.loadAll()
        #expect(loader.registry.allJobs.count == 1)
    }

    /// A deploy swapping the directory twice: the rescan after the first copy lists a file the
    /// second `rm -rf` deletes before it is read. It is handed back to settle, not removed.
    @Test func aFileDeletedBetweenTheScanAndItsReadIsHandedBackNotRemoved() throws {
        var (directory, loader) = try loadedOneJob()
        #expect(loader.registry.allJobs.count == 1)

        #expect(unlink(directory.at("jobs.d/one.job")) == 0)
        var vanished: [String] = []
        let changes = loader.apply(present: ["jobs.d/one.job"], replacing: ["jobs.d/one.job"],
                                   vanished: &vanished)
        #expect(changes.isEmpty)
        #expect(vanished == ["jobs.d/one.job"])
        #expect(loader.registry.allJobs.count == 1)
    }
}
