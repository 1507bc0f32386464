// SPDX-License-Identifier: Apache-2.0
@testable import AgentSystem
import Glibc
import Testing

/// The event-mapping rules, fed with hand-made kernel events (sequences the kernel produces,
/// including ones a test cannot provoke on demand, like a queue overflow or an unmount), with a
/// table standing in for libinotifytools.
struct ConfigWatchTranslatorTests {
    /// Records what the translator asked of the library; directories listed in `present` can be
    /// watched, with descriptors handed out in order as the kernel does.
    struct FakeHost: ConfigWatchHost {
        var present: Set<String>
        var failures: [String: Int32] = [:]
        var completeEntries: Set<String> = []
        var nextWD: Int32 = 1
        var log: [String] = []

        mutating func addWatch(directoryPath: String) -> Result<Int32, ConfigWatchAddFailure> {
            if let code = failures[directoryPath] { return .failure(ConfigWatchAddFailure(errno: code)) }
            guard present.contains(directoryPath) else { return .failure(ConfigWatchAddFailure(errno: ENOENT)) }
            defer { nextWD += 1 }
            log.append("add \(directoryPath) \(nextWD)")
            return .success(nextWD)
        }
        mutating func removeWatch(_ wd: Int32, directoryPath: String) {
            log.append("remove \(directoryPath) \(wd)")
        }
        mutating func forgetDroppedWatch(_ wd: Int32, directoryPath: String) {
            log.append("forget \(directoryPath) \(wd)")
        }
        func createdEntry(path: String) -> CreatedEntry { completeEntries.contains(path) ? .complete : .beingWritten }
        /// Inode numbers by path: a test replaces a directory by giving it a new one.
        var inodes: [String: UInt64] = [:]
        func directoryIdentity(path: String) -> DirectoryIdentity? {
            present.contains(path) ? DirectoryIdentity(device: 1, inode: inodes[path] ?? 1) : nil
        }
    }

    static let root = "/cfg"
    let m = InotifyMask.self

    /// A translator armed on /cfg with manifests.d (wd 2) and jobs.d (wd 3).
    func armed(_ host: inout FakeHost) throws -> ConfigWatchTranslator {
        var translator = ConfigWatchTranslator(configDirectory: Self.root)
        try translator.armInitially(host: &host)
        return translator
    }

    func fullHost() -> FakeHost {
        FakeHost(present: [Self.root, Self.root + "/manifests.d", Self.root + "/jobs.d"])
    }

    /// Runs one burst through the translator and returns what the daemon would receive.
    func burst(_ translator: inout ConfigWatchTranslator, _ host: inout FakeHost,
               _ events: [(Int32, UInt32, String)]) -> [ConfigWatchEvent] {
        var batch = ConfigWatchBatch()
        for (wd, mask, name) in events {
            translator.handle(wd: wd, mask: mask, name: name, into: &batch, host: &host)
        }
        translator.finishBatch(into: &batch, host: &host)
        return batch.events
    }

    @Test func armingWatchesTheDirectoryAndTheSubdirectoriesThatExist() throws {
        var host = FakeHost(present: [Self.root, Self.root + "/jobs.d"])
        let translator = try armed(&host)
        #expect(host.log == ["add /cfg 1", "add /cfg/jobs.d 2"])
        #expect(translator.isWatched(.jobs) && !translator.isWatched(.manifests))
    }

    @Test func armingFailsClearlyWhenTheDirectoryCannotBeWatched() {
        var host = FakeHost(present: [])
        var translator = ConfigWatchTranslator(configDirectory: Self.root)
        #expect(throws: ConfigWatcherError.self) { try translator.armInitially(host: &host) }

        var denied = fullHost()
        denied.failures[Self.root + "/jobs.d"] = EACCES
        var second = ConfigWatchTranslator(configDirectory: Self.root)
        do {
            try second.armInitially(host: &denied)
            Issue.record("EACCES on jobs.d must be an error")
        } catch {
            #expect(error.message == "cannot watch /cfg/jobs.d: Permission denied")
        }
    }

    @Test func writesRenamesAndChmodAreChangesDeletesAndRenamesAwayAreRemovals() throws {
        var host = fullHost()
        var translator = try armed(&host)
        let events = burst(&translator, &host, [
            (3, m.closeWrite, "a.job"),
            (3, m.movedTo, "b.job"),
            (3, m.attrib, "c.job"),
            (3, m.delete, "d.job"),
            (3, m.movedFrom, "e.job"),
            (2, m.closeWrite, "x.manifest"),
            (1, m.closeWrite, "agentd.conf"),
        ])
        #expect(events == [
            .changed(relativePath: "jobs.d/a.job"), .changed(relativePath: "jobs.d/b.job"),
            .changed(relativePath: "jobs.d/c.job"), .removed(relativePath: "jobs.d/d.job"),
            .removed(relativePath: "jobs.d/e.job"), .changed(relativePath: "manifests.d/x.manifest"),
            .changed(relativePath: "agentd.conf"),
        ])
    }

    @Test func aCreateCountsOnlyForCompleteEntries() throws {
        var host = fullHost()
        host.completeEntries = ["/cfg/jobs.d/linked.job"]
        var translator = try armed(&host)
        let events = burst(&translator, &host, [(3, m.create, "being-written.job"), (3, m.create, "linked.job")])
        #expect(events == [.changed(relativePath: "jobs.d/linked.job")])
    }

    /// A writer that linked its file in from O_TMPFILE closes it under a made-up name.
    @Test func aFileHeldByItsWriterIsReadWhenACloseInTheConfigFindsItClosed() throws {
        var host = fullHost()
        var translator = try armed(&host)
        #expect(burst(&translator, &host, [(3, m.create, "held.job")]).isEmpty)
        #expect(translator.awaitsWriters)
        #expect(burst(&translator, &host, [(3, m.closeWrite, "#16253051")]) == [.changed(relativePath: "jobs.d/#16253051")])
        host.completeEntries = ["/cfg/jobs.d/held.job"]
        #expect(burst(&translator, &host, [(3, m.closeWrite, "#16253051")]).contains(.changed(relativePath: "jobs.d/held.job")))
        #expect(!translator.awaitsWriters)
    }

    @Test func aFileItsWriterClosesIsReportedOnceByItsOwnClose() throws {
        var host = fullHost()
        var translator = try armed(&host)
        let events = burst(&translator, &host, [(3, m.create, "typed.job"), (3, m.closeWrite, "typed.job")])
        #expect(events == [.changed(relativePath: "jobs.d/typed.job")])
        #expect(!translator.awaitsWriters)
    }

    @Test func aFileItsWriterNeverClosesIsReadAfterTenQuietSeconds() throws {
        var host = fullHost()
        var translator = try armed(&host)
        _ = burst(&translator, &host, [(3, m.create, "log.job")])
        var quiet: [[ConfigWatchEvent]] = []
        for _ in 0..<ConfigWatchTranslator.writerPatienceSeconds {
            var batch = ConfigWatchBatch()
            translator.checkWritersAfterAQuietSecond(into: &batch, host: host)
            quiet.append(batch.events)
        }
        #expect(quiet.dropLast().allSatisfy { $0.isEmpty })
        #expect(quiet.last == [.changed(relativePath: "jobs.d/log.job")])
        #expect(!translator.awaitsWriters)
    }

    @Test func repeatedEventsInABurstAreCoalescedButTheLastWordStays() throws {
        var host = fullHost()
        host.completeEntries = ["/cfg/jobs.d/a.job"]
        var translator = try armed(&host)
        let events = burst(&translator, &host, [
            (3, m.create, "a.job"), (3, m.closeWrite, "a.job"), (3, m.attrib, "a.job"),
            (3, m.delete, "b.job"), (3, m.closeWrite, "b.job"), (3, m.delete, "b.job"),
        ])
        #expect(events == [
            .changed(relativePath: "jobs.d/a.job"),
            .removed(relativePath: "jobs.d/b.job"), .changed(relativePath: "jobs.d/b.job"),
            .removed(relativePath: "jobs.d/b.job"),
        ])
    }

    @Test func otherNamesSubdirectoriesAndDirectoryAttributesAreIgnored() throws {
        var host = fullHost()
        var translator = try armed(&host)
        let events = burst(&translator, &host, [
            (1, m.closeWrite, "README"),
            (1, m.create | m.isDirectory, "agentd.conf"),
            (3, m.create | m.isDirectory, "nested"),
            (3, m.attrib | m.isDirectory, ""),
            (1, m.attrib | m.isDirectory, ""),
        ])
        #expect(events.isEmpty)
    }

    @Test func overflowIsReported() throws {
        var host = fullHost()
        var translator = try armed(&host)
        #expect(burst(&translator, &host, [(-1, m.queueOverflow, "")]) == [.overflow])
    }

    /// `rm -rf jobs.d` as the kernel reports it, then `mkdir jobs.d` in a later burst.
    @Test func aDeletedSubdirectoryIsForgottenRescannedAndWatchedAgainWhenItReturns() throws {
        var host = fullHost()
        var translator = try armed(&host)
        var events = burst(&translator, &host, [
            (3, m.delete, "a.job"),
            (3, m.deleteSelf, ""),
            (3, m.ignored, ""),
            (1, m.delete | m.isDirectory, "jobs.d"),
        ])
        #expect(events == [.removed(relativePath: "jobs.d/a.job"), .rescan(directory: "jobs.d")])
        #expect(host.log.last == "forget /cfg/jobs.d 3")
        #expect(!translator.isWatched(.jobs))

        host.log.removeAll()
        events = burst(&translator, &host, [(1, m.create | m.isDirectory, "jobs.d"), (3, m.closeWrite, "late")])
        // The stale descriptor's events are dropped; the new directory gets a new watch.
        #expect(events == [.rescan(directory: "jobs.d")])
        #expect(host.log == ["add /cfg/jobs.d 4"])
        events = burst(&translator, &host, [(4, m.closeWrite, "new.job")])
        #expect(events == [.changed(relativePath: "jobs.d/new.job")])
    }

    @Test func aSubdirectoryRenamedAwayLosesItsWatch() throws {
        var host = fullHost()
        var translator = try armed(&host)
        let events = burst(&translator, &host, [
            (1, m.movedFrom | m.isDirectory, "manifests.d"),
            (1, m.movedTo | m.isDirectory, "manifests.old"),
            (2, m.moveSelf, ""),
            (2, m.closeWrite, "after.manifest"),
        ])
        #expect(events == [.rescan(directory: "manifests.d")])
        #expect(host.log.last == "remove /cfg/manifests.d 2")
    }

    @Test func aSubdirectoryReplacedByRenameIsWatchedAfresh() throws {
        var host = fullHost()
        var translator = try armed(&host)
        // mv new jobs.d over an empty jobs.d: the old directory's IN_IGNORED comes after the move.
        var events = burst(&translator, &host, [
            (1, m.movedFrom | m.isDirectory, "new"),
            (1, m.movedTo | m.isDirectory, "jobs.d"),
        ])
        #expect(events == [.rescan(directory: "jobs.d")])
        #expect(host.log.suffix(2) == ["remove /cfg/jobs.d 3", "add /cfg/jobs.d 4"])
        events = burst(&translator, &host, [(3, m.deleteSelf, ""), (3, m.ignored, ""), (4, m.closeWrite, "x.job")])
        #expect(events == [.changed(relativePath: "jobs.d/x.job")])
    }

    @Test func aSubdirectoryCreatedAndRemovedInOneBurstIsNotWatched() throws {
        var host = FakeHost(present: [Self.root])
        var translator = try armed(&host)
        let events = burst(&translator, &host, [
            (1, m.create | m.isDirectory, "jobs.d"),
            (1, m.delete | m.isDirectory, "jobs.d"),
        ])
        #expect(events == [.rescan(directory: "jobs.d")])
        #expect(host.log == ["add /cfg 1"])
    }

    @Test func aSymlinkedSubdirectoryIsWatchedAndUnwatchedWithItsLink() throws {
        var host = FakeHost(present: [Self.root])
        var translator = try armed(&host)
        host.present.insert("/cfg/jobs.d")
        var events = burst(&translator, &host, [(1, m.create, "jobs.d")])
        #expect(events == [.rescan(directory: "jobs.d")])
        #expect(translator.isWatched(.jobs))
        events = burst(&translator, &host, [(1, m.delete, "jobs.d")])
        #expect(events == [.rescan(directory: "jobs.d")])
        #expect(host.log.last == "remove /cfg/jobs.d 2")
    }

    @Test func theConfigDirectoryMovingAwayMeansEverythingIsGone() throws {
        var host = fullHost()
        var translator = try armed(&host)
        let events = burst(&translator, &host, [(1, m.moveSelf, ""), (3, m.closeWrite, "x.job")])
        #expect(events == [.rescan(directory: ""), .rescan(directory: "manifests.d"), .rescan(directory: "jobs.d")])
        #expect(translator.rootLost)
        #expect(Set(host.log.filter { $0.hasPrefix("remove") }) ==
                ["remove /cfg 1", "remove /cfg/manifests.d 2", "remove /cfg/jobs.d 3"])
    }

    @Test func theConfigDirectoryBeingDeletedMeansEverythingIsGone() throws {
        var host = fullHost()
        var translator = try armed(&host)
        let events = burst(&translator, &host, [
            (3, m.ignored, ""), (1, m.delete | m.isDirectory, "jobs.d"),
            (2, m.ignored, ""), (1, m.delete | m.isDirectory, "manifests.d"),
            (1, m.deleteSelf, ""), (1, m.ignored, ""),
            (1, m.create | m.isDirectory, "jobs.d"),
        ])
        #expect(events == [.rescan(directory: "jobs.d"), .rescan(directory: "manifests.d"), .rescan(directory: "")])
        #expect(translator.rootLost)
        #expect(!host.log.contains { $0.hasPrefix("add /cfg/jobs.d 4") })
    }
}

/// The config directory coming back, being replaced or swapped behind a symlink (item 4 of
/// issue 10: a deploy must not leave the agent deaf).
struct ConfigDirectoryReplacementTranslatorTests {
    typealias FakeHost = ConfigWatchTranslatorTests.FakeHost
    let m = InotifyMask.self
    static let all: Set<String> = ["/", "/cfg", "/cfg/manifests.d", "/cfg/jobs.d"]

    func burst(_ translator: inout ConfigWatchTranslator, _ host: inout FakeHost,
               _ events: [(Int32, UInt32, String)]) -> [ConfigWatchEvent] {
        var batch = ConfigWatchBatch()
        for (wd, mask, name) in events {
            translator.handle(wd: wd, mask: mask, name: name, into: &batch, host: &host)
        }
        translator.finishBatch(into: &batch, host: &host)
        return batch.events
    }

    /// Armed on /cfg (1), manifests.d (2), jobs.d (3) and the parent / (4).
    func armed(_ host: inout FakeHost) throws -> ConfigWatchTranslator {
        var translator = ConfigWatchTranslator(configDirectory: "/cfg")
        try translator.armInitially(host: &host)
        return translator
    }

    @Test func theParentIsWatchedForTheDirectorysName() throws {
        var host = FakeHost(present: Self.all)
        let translator = try armed(&host)
        #expect(host.log == ["add /cfg 1", "add /cfg/manifests.d 2", "add /cfg/jobs.d 3", "add / 4"])
        #expect(translator.health == ConfigWatchHealth(watchedDirectories: 3, missing: [], parentWatched: true))
    }

    /// `rm -rf /cfg && cp -a backup /cfg`, the copy in a later burst.
    @Test func aDeletedConfigDirectoryIsWatchedAgainWhenItComesBack() throws {
        var host = FakeHost(present: Self.all)
        var translator = try armed(&host)
        host.present = ["/"]
        _ = burst(&translator, &host, [
            (3, m.ignored, ""), (1, m.delete | m.isDirectory, "jobs.d"),
            (2, m.ignored, ""), (1, m.delete | m.isDirectory, "manifests.d"),
            (1, m.deleteSelf, ""), (1, m.ignored, ""),
            (4, m.delete | m.isDirectory, "cfg"),
        ])
        #expect(translator.rootLost)
        #expect(translator.health.missing == ["/cfg", "/cfg/manifests.d", "/cfg/jobs.d"])

        host.present = Self.all
        host.log.removeAll()
        let events = burst(&translator, &host, [(4, m.create | m.isDirectory, "cfg")])
        #expect(events == [.rescan(directory: ""), .rescan(directory: "manifests.d"), .rescan(directory: "jobs.d")])
        #expect(host.log == ["add /cfg 5", "add /cfg/manifests.d 6", "add /cfg/jobs.d 7"])
        #expect(!translator.rootLost)
        #expect(burst(&translator, &host, [(7, m.closeWrite, "new.job")]) == [.changed(relativePath: "jobs.d/new.job")])
    }

    /// `ln -s /srv/v2 /cfg.new && mv -T /cfg.new /cfg`: only the parent hears of it.
    @Test func aSymlinkSwappedInIsFollowedToItsNewTarget() throws {
        var host = FakeHost(present: Self.all)
        var translator = try armed(&host)
        host.inodes = ["/cfg": 20, "/cfg/manifests.d": 21, "/cfg/jobs.d": 22]
        host.log.removeAll()
        let events = burst(&translator, &host, [(4, m.movedFrom, "cfg.new"), (4, m.movedTo, "cfg")])
        #expect(events == [.rescan(directory: ""), .rescan(directory: "manifests.d"), .rescan(directory: "jobs.d")])
        #expect(host.log.filter { $0.hasPrefix("remove") }.count == 3)
        #expect(host.log.suffix(3) == ["add /cfg 5", "add /cfg/manifests.d 6", "add /cfg/jobs.d 7"])
    }

    /// After an overflow (or SIGHUP) a subdirectory replaced unseen is watched afresh.
    @Test func verificationRewatchesAReplacedSubdirectory() throws {
        var host = FakeHost(present: Self.all)
        var translator = try armed(&host)
        host.inodes["/cfg/jobs.d"] = 9
        host.log.removeAll()
        translator.requestVerification()
        let events = burst(&translator, &host, [])
        #expect(events == [.rescan(directory: "jobs.d")])
        #expect(host.log == ["remove /cfg/jobs.d 3", "add /cfg/jobs.d 5"])
        // Nothing changed since: a second check does nothing.
        host.log.removeAll()
        translator.requestVerification()
        #expect(burst(&translator, &host, []).isEmpty)
        #expect(host.log.isEmpty)
    }

    @Test func otherNamesInTheParentAreIgnored() throws {
        var host = FakeHost(present: Self.all)
        var translator = try armed(&host)
        host.log.removeAll()
        #expect(burst(&translator, &host, [(4, m.create, "passwd"), (4, m.delete, "cfgx")]).isEmpty)
        #expect(host.log.isEmpty)
    }
}

struct ConfigWatchBatchTests {
    @Test func identicalNeighboursPerPathCollapseOthersStay() {
        var batch = ConfigWatchBatch()
        for event: ConfigWatchEvent in [
            .changed(relativePath: "a"), .changed(relativePath: "b"), .changed(relativePath: "a"),
            .rescan(directory: "jobs.d"), .rescan(directory: "jobs.d"), .overflow, .overflow,
            .removed(relativePath: "a"), .changed(relativePath: "a"), .changed(relativePath: "a"),
        ] {
            batch.add(event)
        }
        #expect(batch.events == [
            .changed(relativePath: "a"), .changed(relativePath: "b"), .rescan(directory: "jobs.d"),
            .overflow, .removed(relativePath: "a"), .changed(relativePath: "a"),
        ])
    }
}
