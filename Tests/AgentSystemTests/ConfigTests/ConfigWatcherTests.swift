// SPDX-License-Identifier: Apache-2.0
@testable import AgentSystem
import Glibc
import Testing

/// The watcher against the real kernel: real files in a temporary config directory, real
/// inotify, one shared watcher (see `SharedConfigWatch`). Serialized, because the tests share
/// that directory and some of them remove and recreate its subdirectories.
@Suite(.serialized)
struct ConfigWatcherTests {
    let watch: SharedConfigWatch

    init() throws {
        watch = try SharedConfigWatch.shared.get()
    }

    private func changed(_ path: String) -> ConfigWatchEvent { .changed(relativePath: path) }
    private func removed(_ path: String) -> ConfigWatchEvent { .removed(relativePath: path) }

    @Test func creatingAFileReportsItChanged() throws {
        let start = watch.mark()
        try ConfigFS.write(watch.path("jobs.d/create.job"), "[Job]\nIdentifier=local.create\n")
        #expect(watch.wait(for: changed("jobs.d/create.job"), since: start) != nil)
    }

    @Test func rewritingAFileReportsItChanged() throws {
        try ConfigFS.write(watch.path("jobs.d/rewrite.job"))
        try watch.barrier()
        let start = watch.mark()
        try ConfigFS.write(watch.path("jobs.d/rewrite.job"), "[Job]\nKind=refresh\n")
        let seen = watch.wait(for: changed("jobs.d/rewrite.job"), since: start)
        #expect(seen != nil)
        #expect(seen?.contains(removed("jobs.d/rewrite.job")) == false)
    }

    @Test func manifestsAndAgentSettingsAreReportedOtherRootFilesAreNot() throws {
        let start = watch.mark()
        try ConfigFS.write(watch.path("README"), "not config\n")
        try ConfigFS.write(watch.path("manifests.d/photos.manifest"), "[Manifest]\n")
        try ConfigFS.write(watch.path("agentd.conf"), "[Agent]\n")
        let seen = watch.wait(since: start) {
            $0.contains(changed("manifests.d/photos.manifest")) && $0.contains(changed("agentd.conf"))
        }
        #expect(seen != nil)
        try watch.barrier()
        let all = watch.events(since: start)
        #expect(!all.contains { $0 == changed("README") || $0 == removed("README") })
    }

    @Test func editorStyleSaveReportsOnlyTheRealFile() throws {
        let start = watch.mark()
        // vim: swap file, backup file, new content written to a temporary and renamed over.
        try ConfigFS.write(watch.path("jobs.d/.edit.job.swp"), "swap")
        try ConfigFS.write(watch.path("jobs.d/edit.job~"), "[Job]\nold\n")
        try ConfigFS.write(watch.path("jobs.d/.edit.job.tmp"), "[Job]\nnew\n")
        try ConfigFS.rename(watch.path("jobs.d/.edit.job.tmp"), watch.path("jobs.d/edit.job"))
        try ConfigFS.remove(watch.path("jobs.d/.edit.job.swp"))
        // emacs autosave, dpkg and ucf leftovers, a non-hidden swap file.
        try ConfigFS.write(watch.path("jobs.d/#edit.job#"), "autosave")
        try ConfigFS.write(watch.path("jobs.d/edit.job.dpkg-new"), "[Job]\npackaged\n")
        try ConfigFS.write(watch.path("jobs.d/edit.job.dpkg-old"), "[Job]\n")
        try ConfigFS.write(watch.path("jobs.d/edit.job.ucf-dist"), "[Job]\n")
        try ConfigFS.write(watch.path("jobs.d/edit.job.swx"), "swap")
        try ConfigFS.rename(watch.path("jobs.d/edit.job.dpkg-new"), watch.path("jobs.d/edit.job"))
        try ConfigFS.write(watch.path("manifests.d/.hidden.manifest"), "[Manifest]\n")
        try watch.barrier()

        let related = watch.events(since: start).filter { event in
            switch event {
            case .changed(let path), .removed(let path): return path.contains("edit") || path.contains("hidden")
            default: return false
            }
        }
        #expect(!related.isEmpty)
        #expect(related.allSatisfy { $0 == changed("jobs.d/edit.job") }, "got \(related)")
    }

    @Test func renamingAFileAwayReportsItRemoved() throws {
        try ConfigFS.write(watch.path("jobs.d/leaving.job"))
        try watch.barrier()
        let start = watch.mark()
        try ConfigFS.rename(watch.path("jobs.d/leaving.job"), watch.path("leaving.job.moved"))
        #expect(watch.wait(for: removed("jobs.d/leaving.job"), since: start) != nil)
    }

    @Test func renamingAFileInReportsItChanged() throws {
        try ConfigFS.write(watch.path("arriving.job.staged"))
        let start = watch.mark()
        try ConfigFS.rename(watch.path("arriving.job.staged"), watch.path("jobs.d/arriving.job"))
        #expect(watch.wait(for: changed("jobs.d/arriving.job"), since: start) != nil)
    }

    @Test func deletingAFileReportsItRemoved() throws {
        try ConfigFS.write(watch.path("manifests.d/doomed.manifest"))
        try watch.barrier(in: "jobs.d")
        let start = watch.mark()
        try ConfigFS.remove(watch.path("manifests.d/doomed.manifest"))
        #expect(watch.wait(for: removed("manifests.d/doomed.manifest"), since: start) != nil)
    }

    @Test func chmodReportsChanged() throws {
        try ConfigFS.write(watch.path("jobs.d/mode.job"))
        try watch.barrier()
        let start = watch.mark()
        try ConfigFS.chmod(watch.path("jobs.d/mode.job"), 0o664)
        #expect(watch.wait(for: changed("jobs.d/mode.job"), since: start) != nil)
    }

    @Test func hardLinksAndSymlinksAreReportedWithoutAWrite() throws {
        try ConfigFS.write(watch.path("shared-source"), "[Job]\n")
        let start = watch.mark()
        // link(2) and symlink(2) only produce IN_CREATE: no IN_CLOSE_WRITE follows.
        try ConfigFS.link(watch.path("shared-source"), watch.path("jobs.d/hardlinked.job"))
        try ConfigFS.symlink(target: "../shared-source", at: watch.path("jobs.d/symlinked.job"))
        let seen = watch.wait(since: start) {
            $0.contains(changed("jobs.d/hardlinked.job")) && $0.contains(changed("jobs.d/symlinked.job"))
        }
        #expect(seen != nil)
    }

    /// A program that creates a job file and writes it in pieces (a script's several `echo`s,
    /// a slow copy) has it read once, whole, when it closes it. A second file written after
    /// the first piece shows how far the watcher got: events come in order.
    @Test func aFileWrittenInPiecesIsReadOnlyOnceItsWriterClosesIt() throws {
        let start = watch.mark()
        let fd = open(watch.path("jobs.d/pieces.job"), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        #expect(fd >= 0)
        try ConfigFS.writeAll(fd, "[Job]\nIdentifier=local.pieces\n", path: "pieces.job")
        try ConfigFS.write(watch.path("jobs.d/after-pieces.job"))
        let first = watch.wait(for: changed("jobs.d/after-pieces.job"), since: start)
        #expect(first != nil)
        #expect(first?.contains(changed("jobs.d/pieces.job")) == false)
        try ConfigFS.writeAll(fd, "Exec=/bin/true\n", path: "pieces.job")
        close(fd)
        #expect(watch.wait(for: changed("jobs.d/pieces.job"), since: start) != nil)
    }

    /// A writer that links its file in from O_TMPFILE and only then closes it: the close is
    /// reported under a made-up name (`#INODE`), and the file is read then.
    @Test func aFileLinkedInBeforeItsWriterClosesItIsReadWhenClosed() throws {
        let start = watch.mark()
        let tmpfile: Int32 = 0o20_000_000 | O_DIRECTORY  // O_TMPFILE, which Glibc's module lacks
        let fd = open(watch.path("jobs.d"), tmpfile | O_WRONLY | O_CLOEXEC, 0o644)
        #expect(fd >= 0)
        try ConfigFS.writeAll(fd, "[Job]\nIdentifier=local.linked-in\n", path: "O_TMPFILE")
        #expect(linkat(AT_FDCWD, "/proc/self/fd/\(fd)", AT_FDCWD, watch.path("jobs.d/linked-in.job"),
                       AT_SYMLINK_FOLLOW) == 0)
        try ConfigFS.write(watch.path("jobs.d/after-linked-in.job"))
        let first = watch.wait(for: changed("jobs.d/after-linked-in.job"), since: start)
        #expect(first != nil)
        #expect(first?.contains(changed("jobs.d/linked-in.job")) == false)
        try ConfigFS.writeAll(fd, "Exec=/bin/true\n", path: "O_TMPFILE")
        close(fd)
        #expect(watch.wait(for: changed("jobs.d/linked-in.job"), since: start) != nil)
    }

    @Test func filesInSubdirectoriesOfJobsDAreNotConfig() throws {
        let start = watch.mark()
        try ConfigFS.makeDirectory(watch.path("jobs.d/nested"))
        try ConfigFS.write(watch.path("jobs.d/nested/inner.job"))
        try watch.barrier()
        let seen = watch.events(since: start)
        #expect(!seen.contains { event in
            if case .changed(let path) = event { return path.contains("nested") }
            if case .removed(let path) = event { return path.contains("nested") }
            return false
        }, "got \(seen)")
    }

    @Test func removingAndRecreatingJobsDRescansAndWatchesTheNewDirectory() throws {
        try ConfigFS.write(watch.path("jobs.d/before-rm.job"))
        try watch.barrier()

        var start = watch.mark()
        ConfigFS.removeTree(watch.path("jobs.d"))
        #expect(watch.wait(for: .rescan(directory: "jobs.d"), since: start) != nil)
        // Let every event of the removal arrive before the next mark.
        try watch.barrier(in: "manifests.d")

        start = watch.mark()
        try ConfigFS.makeDirectory(watch.path("jobs.d"))
        // Created at once, most likely before the watcher has a watch on the new directory:
        // the rescan is what finds it.
        try ConfigFS.write(watch.path("jobs.d/early.job"))
        #expect(watch.wait(for: .rescan(directory: "jobs.d"), since: start) != nil)
        #expect(ConfigFileReader.scan(configDirectory: watch.root).contains("jobs.d/early.job"))

        // The rescan is delivered only after the new directory is watched.
        start = watch.mark()
        try ConfigFS.write(watch.path("jobs.d/late.job"))
        #expect(watch.wait(for: changed("jobs.d/late.job"), since: start) != nil)
        start = watch.mark()
        try ConfigFS.remove(watch.path("jobs.d/late.job"))
        #expect(watch.wait(for: removed("jobs.d/late.job"), since: start) != nil)
    }

    @Test func movingJobsDAwayAndBackRescansAndIgnoresItWhileAway() throws {
        try watch.barrier()
        var start = watch.mark()
        try ConfigFS.rename(watch.path("jobs.d"), watch.path("jobs.away"))
        #expect(watch.wait(for: .rescan(directory: "jobs.d"), since: start) != nil)

        // The moved directory is no longer config, although the kernel could still report it.
        start = watch.mark()
        try ConfigFS.write(watch.path("jobs.away/while-away.job"))
        try watch.barrier()
        #expect(!watch.events(since: start).contains { event in
            if case .changed(let path) = event { return path.contains("while-away") }
            return false
        })

        start = watch.mark()
        try ConfigFS.rename(watch.path("jobs.away"), watch.path("jobs.d"))
        #expect(watch.wait(for: .rescan(directory: "jobs.d"), since: start) != nil)
        start = watch.mark()
        try ConfigFS.write(watch.path("jobs.d/after-return.job"))
        #expect(watch.wait(for: changed("jobs.d/after-return.job"), since: start) != nil)
    }

    @Test func replacingManifestsDByRenameWatchesTheReplacement() throws {
        try ConfigFS.makeDirectory(watch.path("manifests.new"))
        try ConfigFS.write(watch.path("manifests.new/replaced.manifest"))
        try watch.barrier(in: "jobs.d")
        // Swap in a fresh directory: the old one stays alive under another name first.
        var start = watch.mark()
        try ConfigFS.rename(watch.path("manifests.d"), watch.path("manifests.old"))
        try ConfigFS.rename(watch.path("manifests.new"), watch.path("manifests.d"))
        let seen = watch.wait(since: start) {
            $0.filter { $0 == .rescan(directory: "manifests.d") }.count >= 1
        }
        #expect(seen != nil)
        try watch.barrier(in: "jobs.d")
        #expect(ConfigFileReader.scan(configDirectory: watch.root).contains("manifests.d/replaced.manifest"))

        start = watch.mark()
        try ConfigFS.write(watch.path("manifests.old/stale.manifest"))
        try ConfigFS.write(watch.path("manifests.d/fresh.manifest"))
        #expect(watch.wait(for: changed("manifests.d/fresh.manifest"), since: start) != nil)
        try watch.barrier(in: "jobs.d")
        #expect(!watch.events(since: start).contains(changed("manifests.d/stale.manifest")))
    }

    @Test func renamingADirectoryOverAnEmptyJobsDWatchesTheNewOne() throws {
        // Park the populated jobs.d and put an empty one in its place.
        try ConfigFS.rename(watch.path("jobs.d"), watch.path("jobs.parked"))
        try ConfigFS.makeDirectory(watch.path("jobs.d"))
        try ConfigFS.makeDirectory(watch.path("jobs.incoming"))
        try ConfigFS.write(watch.path("jobs.incoming/incoming.job"))
        try watch.barrier()

        // rename(2) over an empty directory replaces it: the old watch dies with it.
        var start = watch.mark()
        try ConfigFS.rename(watch.path("jobs.incoming"), watch.path("jobs.d"))
        #expect(watch.wait(for: .rescan(directory: "jobs.d"), since: start) != nil)
        try watch.barrier()
        #expect(ConfigFileReader.scan(configDirectory: watch.root).contains("jobs.d/incoming.job"))

        start = watch.mark()
        try ConfigFS.write(watch.path("jobs.d/after-replace.job"))
        #expect(watch.wait(for: changed("jobs.d/after-replace.job"), since: start) != nil)

        // Put the original back for the tests that follow. A file written before the watcher
        // has handled the move would only be found by the rescan, so wait for that first.
        start = watch.mark()
        ConfigFS.removeTree(watch.path("jobs.d"))
        #expect(watch.wait(for: .rescan(directory: "jobs.d"), since: start) != nil)
        try watch.barrier()
        start = watch.mark()
        try ConfigFS.rename(watch.path("jobs.parked"), watch.path("jobs.d"))
        #expect(watch.wait(for: .rescan(directory: "jobs.d"), since: start) != nil)
        start = watch.mark()
        try ConfigFS.write(watch.path("jobs.d/restored.job"))
        #expect(watch.wait(for: changed("jobs.d/restored.job"), since: start) != nil)
    }

    @Test func aBurstOfFiveHundredFilesIsReportedCompletely() throws {
        let names = (0..<500).map { "jobs.d/bulk-\($0).job" }
        let start = watch.mark()
        for name in names {
            try ConfigFS.write(watch.path(name), "[Job]\nIdentifier=local.\(name.dropFirst(7))\n")
        }
        let seen = watch.wait(since: start, timeout: 60) { events in
            if events.contains(.overflow) || events.contains(.rescan(directory: "jobs.d")) { return true }
            let changedPaths = Set(events.compactMap { event -> String? in
                if case .changed(let path) = event { return path }
                return nil
            })
            return names.allSatisfy(changedPaths.contains)
        }
        #expect(seen != nil)
        for name in names { try ConfigFS.remove(watch.path(name)) }
    }

    @Test func aQueueOverflowIsReportedAndWatchingGoesOn() throws {
        let limit = try #require(Self.maxQueuedEvents())
        // A machine with a huge queue would need too many events to overflow it in a test.
        try #require(limit <= 1 << 20, "fs.inotify.max_queued_events is \(limit)")
        try ConfigFS.write(watch.path("jobs.d/flip.job"))
        try ConfigFS.write(watch.path("jobs.d/flop.job"))
        try watch.barrier()
        let start = watch.mark()
        try watch.whileWatcherIsHeld(trigger: "jobs.d/hold.job") {
            // Alternate two files: the kernel merges an event identical to the one queued last.
            for round in 0...(limit / 2 + 16) {
                try ConfigFS.chmod(watch.path("jobs.d/flip.job"), round % 2 == 0 ? 0o600 : 0o644)
                try ConfigFS.chmod(watch.path("jobs.d/flop.job"), round % 2 == 0 ? 0o600 : 0o644)
            }
        }
        #expect(watch.wait(for: .overflow, since: start) != nil)
        try watch.barrier()
    }

    static func maxQueuedEvents() -> Int? {
        let fd = open("/proc/sys/fs/inotify/max_queued_events", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else { return nil }
        return Int(String(decoding: buffer[..<count], as: UTF8.self).filter(\.isNumber))
    }

    @Test func theInotifyDescriptorIsNotInheritedByPlugins() throws {
        // The library opens it without close-on-exec; the watcher sets the flag.
        for fd in InotifyToolsSession.inotifyDescriptors() {
            #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0, "inotify descriptor \(fd)")
        }
        #expect(!InotifyToolsSession.inotifyDescriptors().isEmpty)
    }

    @Test func aSecondWatcherInTheProcessIsRefused() throws {
        let second = ConfigWatcher(configDirectory: watch.root)
        do {
            try second.start { _ in }
            Issue.record("a second start must throw")
        } catch {
            #expect(error.message.contains("already running"))
        }
    }
}

/// Start-up errors that are found before libinotifytools is touched (so they can be tested in
/// a process whose one watcher is already running).
struct ConfigWatcherStartTests {
    @Test func aMissingDirectoryIsAClearError() throws {
        let directory = try ConfigTempDirectory()
        let watcher = ConfigWatcher(configDirectory: directory.at("absent"))
        do {
            try watcher.start { _ in }
            Issue.record("start must throw for a missing directory")
        } catch {
            #expect(error.message.contains(directory.at("absent")))
            #expect(error.message.contains("No such file or directory"))
            // And what to do about it, as written.
            #expect(error.message.contains("mkdir -p \(directory.at("absent"))/manifests.d \(directory.at("absent"))/jobs.d"))
            #expect(error.message.hasSuffix("or name another with --config-dir"))
        }
    }

    @Test func aFileIsNotAConfigDirectory() throws {
        let directory = try ConfigTempDirectory()
        try ConfigFS.write(directory.at("plain"))
        do {
            try ConfigWatcher(configDirectory: directory.at("plain")).start { _ in }
            Issue.record("start must throw for a file")
        } catch {
            #expect(error.message.contains("not a directory; name a directory with --config-dir"))
        }
    }

    @Test func trailingSlashesAreDropped() {
        #expect(ConfigWatcher(configDirectory: "/etc/agentd//").configDirectory == "/etc/agentd")
        #expect(ConfigWatcher(configDirectory: "/").configDirectory == "/")
    }
}
