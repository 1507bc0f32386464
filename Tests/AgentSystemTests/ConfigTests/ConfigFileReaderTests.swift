// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem
import Glibc
import Testing

/// Reading single config files from a real directory.
struct ConfigFileReaderTests {
    let directory: ConfigTempDirectory

    init() throws {
        directory = try ConfigTempDirectory()
        try ConfigFS.makeDirectory(directory.at("jobs.d"))
    }

    func read(_ relativePath: String, maxBytes: Int = ConfigFileReader.defaultMaxBytes) -> ConfigFileReader.ReadResult {
        ConfigFileReader.read(configDirectory: directory.path, relativePath: relativePath, maxBytes: maxBytes)
    }

    func message(_ result: ConfigFileReader.ReadResult) -> String? {
        if case .unreadable(let message) = result { return message }
        return nil
    }

    @Test func aRegularFileComesWithItsOwnerAndMode() throws {
        try ConfigFS.write(directory.at("jobs.d/backup.job"), "[Job]\nKind=refresh\n", mode: 0o640)
        guard case .file(let source) = read("jobs.d/backup.job") else {
            Issue.record("expected the file")
            return
        }
        #expect(source.relativePath == "jobs.d/backup.job")
        #expect(source.bytes == Array("[Job]\nKind=refresh\n".utf8))
        #expect(source.facts.ownerUID == geteuid())
        #expect(source.facts.mode & 0o7777 == 0o640)
        #expect(source.facts.isRegularFile && !source.facts.isGroupOrWorldWritable)
    }

    @Test func anEmptyFileIsAnEmptySource() throws {
        try ConfigFS.write(directory.at("agentd.conf"), "")
        guard case .file(let source) = read("agentd.conf") else {
            Issue.record("expected the file")
            return
        }
        #expect(source.bytes.isEmpty)
    }

    @Test func aSymlinkIsFollowedAndTheTargetsFactsReported() throws {
        try ConfigFS.write(directory.at("real.job"), "[Job]\n", mode: 0o600)
        try ConfigFS.symlink(target: "../real.job", at: directory.at("jobs.d/linked.job"))
        guard case .file(let source) = read("jobs.d/linked.job") else {
            Issue.record("expected the target's content")
            return
        }
        #expect(source.bytes == Array("[Job]\n".utf8))
        #expect(source.facts.mode & 0o7777 == 0o600)
    }

    @Test func aSymlinkLoopIsAClearError() throws {
        try ConfigFS.symlink(target: "b.job", at: directory.at("jobs.d/a.job"))
        try ConfigFS.symlink(target: "a.job", at: directory.at("jobs.d/b.job"))
        let text = try #require(message(read("jobs.d/a.job")))
        #expect(text.contains("symbolic link loop"))
    }

    @Test func aDanglingSymlinkIsAnErrorNotGone() throws {
        try ConfigFS.symlink(target: "/nonexistent/agentd-target", at: directory.at("jobs.d/dangling.job"))
        let text = try #require(message(read("jobs.d/dangling.job")))
        #expect(text.contains("dangling symbolic link"))
    }

    @Test func directoriesAndFIFOsAreRefused() throws {
        try ConfigFS.makeDirectory(directory.at("jobs.d/dir.job"))
        #expect(message(read("jobs.d/dir.job"))?.contains("is a directory") == true)
        // Opened non-blocking: a FIFO without a writer must not hang the reader.
        #expect(mkfifo(directory.at("jobs.d/pipe.job"), 0o644) == 0)
        #expect(message(read("jobs.d/pipe.job")) == "not a regular file (a FIFO)")
    }

    @Test func missingFilesAndDirectoriesAreGone() throws {
        guard case .gone = read("jobs.d/absent.job") else {
            Issue.record("a missing file is gone")
            return
        }
        guard case .gone = read("manifests.d/absent.manifest") else {
            Issue.record("a file in a missing directory is gone")
            return
        }
        try ConfigFS.write(directory.at("plain"))
        guard case .gone = read("plain/x.job") else {
            Issue.record("a path through a file is gone")
            return
        }
    }

    @Test func aLongLineIsReadWholeForTheParserToJudge() throws {
        let line = [UInt8](repeating: UInt8(ascii: "x"), count: 3 << 19)  // 1.5 MiB, no newline
        let contents = Array("[Job]\nExec=".utf8) + line + [10]
        try ConfigFS.write(directory.at("jobs.d/long.job"), bytes: contents)
        guard case .file(let source) = read("jobs.d/long.job") else {
            Issue.record("expected the whole file")
            return
        }
        #expect(source.bytes == contents)
    }

    @Test func aHeadIsReadToItsLastLineWhateverTheFileSize() throws {
        let head = (1...25).map { "# line \($0)" }.joined(separator: "\n") + "\n"
        try ConfigFS.write(directory.at("jobs.d/large"), bytes: Array(head.utf8) + [UInt8](repeating: 0, count: 200_000))
        #expect(message(read("jobs.d/large", maxBytes: 100_000))?.contains("too large") == true, "read whole, it is too large")
        let result = ConfigFileReader.read(configDirectory: directory.path, relativePath: "jobs.d/large",
                                           maxBytes: 100_000, headLines: 20)
        guard case .file(let source) = result else {
            Issue.record("a head is never too large: \(result)")
            return
        }
        let lines = source.bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        #expect(lines.count > 20, "at least 20 whole lines")
        #expect(Array(source.bytes.prefix(head.utf8.count / 2)) == Array(head.utf8.prefix(head.utf8.count / 2)))
        #expect(source.bytes.count < 100_000, "not the whole file: \(source.bytes.count) bytes")
        // Without newlines the head ends at the limit.
        try ConfigFS.write(directory.at("jobs.d/flat"), bytes: [UInt8](repeating: 65, count: 200_000))
        guard case .file(let flat) = ConfigFileReader.read(configDirectory: directory.path, relativePath: "jobs.d/flat",
                                                           maxBytes: 100_000, headLines: 20) else {
            Issue.record("a head without newlines is read up to the limit")
            return
        }
        #expect(flat.bytes.count == 100_000)
    }

    @Test func filesOverTheLimitAreRefused() throws {
        try ConfigFS.write(directory.at("jobs.d/big.job"), bytes: [UInt8](repeating: 65, count: 10_000))
        #expect(message(read("jobs.d/big.job", maxBytes: 9_999))?.contains("too large") == true)
        guard case .file(let source) = read("jobs.d/big.job", maxBytes: 10_000) else {
            Issue.record("a file of exactly the limit is read")
            return
        }
        #expect(source.bytes.count == 10_000)
    }

    @Test func pathsOutsideTheConfigDirectoryAreRefused() throws {
        try ConfigFS.write(directory.at("jobs.d/x.job"))
        for path in ["../x.job", "/etc/passwd", "jobs.d/../jobs.d/x.job", "", "jobs.d//x.job", "./agentd.conf"] {
            #expect(message(read(path)) == "not a path inside the config directory", "\(path)")
        }
    }
}

/// Listing the config directory.
struct ConfigScanTests {
    @Test func scanListsCandidatesSortedAndSkipsLeftoversAndDirectories() throws {
        let directory = try ConfigTempDirectory()
        try ConfigFS.makeDirectory(directory.at("jobs.d"))
        try ConfigFS.makeDirectory(directory.at("manifests.d"))
        try ConfigFS.write(directory.at("agentd.conf"))
        try ConfigFS.write(directory.at("README"))
        for name in ["b.manifest", "a.manifest", ".hidden.manifest", "a.manifest~", "#a.manifest#",
                     "a.manifest.dpkg-old", "a.manifest.dpkg-dist", "a.manifest.ucf-dist", "a.manifest.swp"] {
            try ConfigFS.write(directory.at("manifests.d/" + name))
        }
        for name in ["x.job", "cleanup", "x.job.dpkg-new", "x.job.dpkg-tmp", ".x.job.swx", "x.job.swx"] {
            try ConfigFS.write(directory.at("jobs.d/" + name))
        }
        try ConfigFS.makeDirectory(directory.at("jobs.d/sub.job"))
        try ConfigFS.write(directory.at("jobs.d/sub.job/inner.job"))
        try ConfigFS.symlink(target: "x.job", at: directory.at("jobs.d/alias.job"))
        try ConfigFS.symlink(target: "nowhere", at: directory.at("jobs.d/dangling.job"))
        #expect(mkfifo(directory.at("jobs.d/fifo.job"), 0o644) == 0)

        #expect(ConfigFileReader.scan(configDirectory: directory.path) == [
            "agentd.conf",
            // The FIFO is listed so that it gets its diagnostic (reading it refuses it).
            "jobs.d/alias.job", "jobs.d/cleanup", "jobs.d/dangling.job", "jobs.d/fifo.job", "jobs.d/x.job",
            "manifests.d/a.manifest", "manifests.d/b.manifest",
        ])
    }

    @Test func missingPartsContributeNothing() throws {
        let directory = try ConfigTempDirectory()
        #expect(ConfigFileReader.scan(configDirectory: directory.path).isEmpty)
        #expect(ConfigFileReader.scan(configDirectory: directory.at("absent")).isEmpty)
        try ConfigFS.makeDirectory(directory.at("jobs.d"))
        try ConfigFS.write(directory.at("jobs.d/only.job"))
        #expect(ConfigFileReader.scan(configDirectory: directory.path) == ["jobs.d/only.job"])
    }

    @Test func aSymlinkedSubdirectoryIsListed() throws {
        let directory = try ConfigTempDirectory()
        try ConfigFS.makeDirectory(directory.at("elsewhere"))
        try ConfigFS.write(directory.at("elsewhere/linked.job"))
        try ConfigFS.symlink(target: "elsewhere", at: directory.at("jobs.d"))
        #expect(ConfigFileReader.scan(configDirectory: directory.path) == ["jobs.d/linked.job"])
    }

    @Test func tenThousandFilesAreListedQuickly() throws {
        let directory = try ConfigTempDirectory(inMemory: true)
        try ConfigFS.makeDirectory(directory.at("jobs.d"))
        var created = 0
        for index in 0..<10_000 {
            let fd = open(directory.at("jobs.d/job-\(index).job"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            if fd >= 0 { created += 1 }
            close(fd)
        }
        try #require(created == 10_000)
        let started = configTestNow()
        let listed = ConfigFileReader.scan(configDirectory: directory.path)
        let elapsed = configTestNow() - started
        #expect(listed.count == 10_000)
        #expect(listed.first == "jobs.d/job-0.job")
        // Typically tens of milliseconds; the bound only catches a per-file stat or a quadratic
        // sort on a loaded two-core machine.
        #expect(elapsed < 5, "scan of 10,000 files took \(elapsed) s")
        print("scan of 10,000 files: \(Int(elapsed * 1000)) ms")
    }
}

/// The leftover rule, and that it is the very pattern the inotify filter uses.
struct ConfigLeftoverTests {
    @Test(arguments: [
        ".hidden", ".x.job.swp", "x.job~", "x.job.swp", "x.job.swx", "#x.job#", "##",
        "x.job.dpkg-new", "x.job.dpkg-old", "x.job.dpkg-dist", "x.job.dpkg-tmp",
        "x.job.ucf-dist", "x.job.ucf-old", "x.job.ucf-new", ".", "..", "~",
        "x.job.rpmnew", "x.job.rpmsave", "x.job.rpmorig",
    ])
    func leftovers(_ name: String) {
        #expect(ConfigWatcher.isLeftover(name))
    }

    @Test(arguments: [
        "x.job", "backup", "agentd.conf", "local.manifest", "x~.job", "x.swpx", "#x.job", "x.job#",
        "x.dpkg-newer.job", "dpkg-new", "x.jobswp", "a#b#c", "x.ucf", "x.ucf_dist",
    ])
    func realFiles(_ name: String) {
        #expect(!ConfigWatcher.isLeftover(name))
    }
}
