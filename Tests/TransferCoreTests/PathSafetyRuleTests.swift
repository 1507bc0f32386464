// SPDX-License-Identifier: Apache-2.0
import Testing
import TransferCore

/// docs/transfer.md's rule for the way to DEST, for a run as uid 1000 (and as root).
struct PathSafetyRuleTests {
    typealias Facts = PathSafetyRule.Facts
    let me: UInt32 = 1000
    let other: UInt32 = 1001

    func directory(_ owner: UInt32, _ mode: UInt32, runUID: UInt32 = 1000) -> String? {
        PathSafetyRule.directoryProblem(Facts(kind: .directory, ownerUID: owner, mode: mode), path: "/d", runUID: runUID)
    }

    @Test func directoriesOfRootOrTheRunsUserWritableByNobodyElseAreWalked() {
        #expect(directory(0, 0o755) == nil)
        #expect(directory(me, 0o700) == nil)
        #expect(directory(me, 0o750) == nil)
        #expect(directory(0, 0o755, runUID: 0) == nil)
    }

    @Test func aDirectoryWritableByOthersIsRefusedWithTheChmodThatFixesIt() throws {
        for mode: UInt32 in [0o777, 0o775, 0o757] {
            let problem = try #require(directory(0, mode), "mode \(String(mode, radix: 8)) was accepted")
            #expect(problem.contains("writable by others than root and the run's user"))
            #expect(problem.contains("chmod go-w /d"))
        }
    }

    /// /tmp: others may add entries, but only an entry's owner may rename or remove it, and each
    /// entry the plugin uses is held to the owner rule itself.
    @Test func aStickyDirectoryOfRootOrTheRunsUserIsWalked() {
        #expect(directory(0, 0o1777) == nil)
        #expect(directory(me, 0o1777) == nil)
    }

    /// In a sticky directory only DEST's owner may rename over it: that is known before the
    /// download, not after it (the whole file fetched, then the rename refused).
    @Test func anotherUsersDestInAStickyDirectoryIsRefusedBeforeTheDownload() throws {
        let sticky = Facts(kind: .directory, ownerUID: 0, mode: 0o1777)
        let theirs = Facts(kind: .regularFile, ownerUID: other, mode: 0o644)
        let problem = try #require(PathSafetyRule.destinationProblem(theirs, directory: sticky, path: "/tmp/c.bin", runUID: me))
        #expect(problem.contains("/tmp/c.bin belongs to uid 1001, and its directory is sticky"))
        // Its own file, no file yet, a plain directory, or root: the rename can replace it.
        #expect(PathSafetyRule.destinationProblem(Facts(kind: .regularFile, ownerUID: me, mode: 0o644), directory: sticky,
                                                  path: "/tmp/c.bin", runUID: me) == nil)
        #expect(PathSafetyRule.destinationProblem(nil, directory: sticky, path: "/tmp/c.bin", runUID: me) == nil)
        #expect(PathSafetyRule.destinationProblem(theirs, directory: Facts(kind: .directory, ownerUID: me, mode: 0o755),
                                                  path: "/d/c.bin", runUID: me) == nil)
        #expect(PathSafetyRule.destinationProblem(theirs, directory: sticky, path: "/tmp/c.bin", runUID: 0) == nil)
    }

    /// Its owner could chmod it, or swap what is in it, whatever its mode says today.
    @Test func aDirectoryOfAnotherUserIsRefusedEvenWhenStickyOrClosed() throws {
        for mode: UInt32 in [0o755, 0o700, 0o1777] {
            let problem = try #require(directory(other, mode))
            #expect(problem.contains("belongs to uid 1001, neither root nor the run's user (uid 1000)"))
        }
        #expect(directory(me, 0o755, runUID: 0) != nil, "root walked through uid 1000's directory")
    }

    @Test func onlyLinksOfRootOrTheRunsUserAreFollowed() {
        func link(_ owner: UInt32) -> String? {
            PathSafetyRule.linkProblem(Facts(kind: .symbolicLink, ownerUID: owner, mode: 0o777), path: "/s/l", runUID: me)
        }
        #expect(link(0) == nil)
        #expect(link(me) == nil)
        #expect(link(other)?.contains("made by uid 1001") == true)
        #expect(link(other)?.contains("not followed") == true)
    }

    @Test func onlyTheRunsOwnSingleLinkRegularFileIsResumed() {
        func part(_ kind: PathSafetyRule.Kind, _ owner: UInt32, links: UInt64 = 1) -> String? {
            PathSafetyRule.partFileProblem(Facts(kind: kind, ownerUID: owner, mode: 0o644, links: links),
                                           path: "/d/f.part", runUID: me)
        }
        #expect(part(.regularFile, me) == nil)
        #expect(part(.symbolicLink, me)?.contains("is a symbolic link: refused, not written") == true)
        #expect(part(.other("fifo"), me)?.contains("is a fifo, not a regular file") == true)
        #expect(part(.directory, me) != nil)
        // Root's file is not the run's either: a root-owned 0666 file would be writable, and not ours.
        #expect(part(.regularFile, 0)?.contains("belongs to uid 0, not the run's user (uid 1000)") == true)
        #expect(part(.regularFile, other) != nil)
        #expect(part(.regularFile, me, links: 2)?.contains("2 hard links") == true)
    }

    @Test func aDestinationNamingADirectoryIsAUsageError() {
        for destination in [".", "..", "a/..", "/srv/.", "dir/"] {
            if case .success = TransferArguments.parse(["http://h/f", destination]) {
                Issue.record("\(destination) was accepted")
            }
        }
    }
}
