// SPDX-License-Identifier: Apache-2.0
import AgentTestSupport
import Foundation
import Glibc
import Testing

/// The transfer plugin never follows a link it did not make (issue 28 item 3, docs/transfer.md
/// "Where it writes"): links planted by another user, for real (`ln -s` run as that user), in a
/// shared sticky directory like /tmp; the plugin run as root and as an unprivileged user.
@Suite(.serialized,
       .enabled(if: NginxServer.available && getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
                "needs nginx, root (to add throwaway users) and setpriv (util-linux) to act as them"))
struct TransferPathSafetyTests {
    let sandbox: Sandbox
    let server: NginxServer
    /// Plants links and files in the shared directory.
    let attacker: TestUser
    /// `/tmp`'s shape: root's, 1777.
    var shared: String { sandbox.root + "/shared" }
    var url: String { server.url("f.bin") }
    static let secret = "root's secret\n"

    init() throws {
        sandbox = try Sandbox()
        chmod(sandbox.root, 0o755)
        server = try NginxServer()
        try server.serve("f.bin", bytes: 200_000)
        attacker = try TestUser()
        try FileManager.default.createDirectory(atPath: sandbox.root + "/shared", withIntermediateDirectories: false)
        chmod(sandbox.root + "/shared", 0o1777)
    }

    /// A file only root may read or write, holding ``secret``.
    func rootOnlyFile(_ name: String) throws -> String {
        let path = sandbox.root + "/" + name
        try Self.secret.write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o600)
        return path
    }

    /// `ln -s target link` as `user`.
    func plant(_ target: String, at link: String, by user: TestUser) throws {
        let result = try runCommand("/usr/bin/setpriv", user.setpriv + ["/bin/ln", "-s", target, link])
        try #require(result.status == 0, "ln -s as \(user.name): \(result.stderr)")
    }

    func contents(_ path: String) -> String? {
        try? String(contentsOfFile: path, encoding: .utf8)
    }

    @Test func aPlantedPartFileSymlinkIsRefusedNotWritten() throws {
        let victim = try rootOnlyFile("victim")
        let destination = shared + "/f.bin"
        try plant(victim, at: destination + ".part", by: attacker)
        // A first run, and a resume: a checkpoint with a validator makes the plugin want to append.
        for checkpoint in [nil, "transfer/1 5 etag \"planted\""] {
            let run = try BoundedRun([url, destination], checkpoint: checkpoint)
            #expect(run.status == 15, "checkpoint \(checkpoint ?? "none"): exit \(run.status), \(run.stderr)")
            #expect(run.stderr.contains("is a symbolic link: refused, not written"), "\(run.stderr)")
            #expect(contents(victim) == Self.secret, "the planted link's target was written")
            #expect(!FileManager.default.fileExists(atPath: destination))
        }
    }

    /// As an unprivileged user too: the link leads to that user's own private file.
    @Test func anUnprivilegedRunRefusesAPartFileSymlinkToItsOwnFile() throws {
        let runner = try TestUser()
        let home = sandbox.root + "/home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        chown(home, runner.uid, runner.gid)
        chmod(home, 0o700)
        let notes = home + "/notes"
        try Self.secret.write(toFile: notes, atomically: false, encoding: .utf8)
        chown(notes, runner.uid, runner.gid)
        let destination = shared + "/f.bin"
        try plant(notes, at: destination + ".part", by: attacker)
        let run = try BoundedRun([url, destination], as: runner)
        #expect(run.status == 15, "exit \(run.status), \(run.stderr)")
        #expect(contents(notes) == Self.secret, "the runner's own file was overwritten")
        // Where nobody else can plant anything, the same user downloads as before.
        let fine = try BoundedRun([url, home + "/f.bin"], as: runner)
        #expect(fine.status == 0, "exit \(fine.status), \(fine.stderr)")
        #expect(fine.stdout.hasSuffix("RESULT=\(home)/f.bin\n"))
    }

    @Test func aDestinationDirectoryThatIsAPlantedLinkIsRefused() throws {
        let rootOnly = sandbox.root + "/root-only"
        try FileManager.default.createDirectory(atPath: rootOnly, withIntermediateDirectories: false)
        chmod(rootOnly, 0o700)
        try plant(rootOnly, at: shared + "/downloads", by: attacker)
        let run = try BoundedRun([url, shared + "/downloads/f.bin"])
        #expect(run.status == 15, "exit \(run.status), \(run.stderr)")
        #expect(run.stderr.contains("is a symbolic link made by uid \(attacker.uid)"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: rootOnly).isEmpty, "a file was made in root-only")
    }

    @Test func aPathThroughADirectoryOthersCanWriteIsRefusedWithTheFix() throws {
        let open = sandbox.root + "/open"
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false)
        chmod(open, 0o777)  // not sticky: anyone may rename or remove what is in it
        try FileManager.default.createDirectory(atPath: open + "/sub", withIntermediateDirectories: false)
        let run = try BoundedRun([url, open + "/sub/f.bin"])
        #expect(run.status == 15, "exit \(run.status), \(run.stderr)")
        #expect(run.stderr.contains("\(open) is writable by others than root and the run's user (mode 0777)"), "\(run.stderr)")
        #expect(run.stderr.contains("chmod go-w \(open)"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: open + "/sub/f.bin"))

        // Another user's directory: its owner can make it writable, or swap its entries, at will.
        let theirs = shared + "/theirs"
        try FileManager.default.createDirectory(atPath: theirs, withIntermediateDirectories: false)
        chown(theirs, attacker.uid, attacker.gid)
        let intoTheirs = try BoundedRun([url, theirs + "/f.bin"])
        #expect(intoTheirs.status == 15, "exit \(intoTheirs.status), \(intoTheirs.stderr)")
        #expect(intoTheirs.stderr.contains("belongs to uid \(attacker.uid), neither root nor the run's user (uid 0)"))
    }

    @Test func aPartFileOfAnotherUserIsNeitherResumedNorTruncated() throws {
        let destination = shared + "/f.bin"
        let part = destination + ".part"
        try "their bytes".write(toFile: part, atomically: false, encoding: .utf8)
        chown(part, attacker.uid, attacker.gid)
        let run = try BoundedRun([url, destination], checkpoint: "transfer/1 11 etag \"theirs\"")
        #expect(run.status == 15, "exit \(run.status), \(run.stderr)")
        #expect(run.stderr.contains("belongs to uid \(attacker.uid), not the run's user (uid 0)"), "\(run.stderr)")
        #expect(contents(part) == "their bytes")
    }

    /// A second name for the file could be anyone's (here root's own secret, linked in).
    @Test func aHardLinkedPartFileIsRefused() throws {
        let victim = try rootOnlyFile("victim")
        let mine = sandbox.root + "/mine"
        try FileManager.default.createDirectory(atPath: mine, withIntermediateDirectories: false)
        try #require(link(victim, mine + "/f.bin.part") == 0)
        let run = try BoundedRun([url, mine + "/f.bin"])
        #expect(run.status == 15, "exit \(run.status), \(run.stderr)")
        #expect(run.stderr.contains("2 hard links"), "\(run.stderr)")
        #expect(contents(victim) == Self.secret)
    }

    /// What the rule still allows: the shared sticky directory itself, a directory of the run's
    /// user in it, and links root or the run's user made.
    @Test func safeDestinationsInASharedStickyDirectoryStillWork() throws {
        let runner = try TestUser()
        let own = shared + "/\(runner.name)"
        try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: false)
        chown(own, runner.uid, runner.gid)
        try plant(own, at: shared + "/\(runner.name)-link", by: runner)
        for destination in [shared + "/direct.bin", own + "/own.bin", shared + "/\(runner.name)-link/linked.bin"] {
            let run = try BoundedRun([url, destination], as: runner)
            #expect(run.status == 0, "\(destination): exit \(run.status), \(run.stderr)")
            #expect(FileManager.default.fileExists(atPath: destination), "\(destination)")
        }
        // Root follows root's own link.
        try #require(symlink(sandbox.root, shared + "/root-link") == 0)
        let asRoot = try BoundedRun([url, shared + "/root-link/by-root.bin"])
        #expect(asRoot.status == 0, "exit \(asRoot.status), \(asRoot.stderr)")
        #expect(FileManager.default.fileExists(atPath: sandbox.root + "/by-root.bin"))
    }
}
