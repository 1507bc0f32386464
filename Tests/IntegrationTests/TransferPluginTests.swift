// SPDX-License-Identifier: Apache-2.0
import AgentTestSupport
import Foundation
import Glibc
import Testing

extension Binaries {
    /// The transfer plugin as built (installed as /usr/lib/agentd/plugins/transfer).
    static var transfer: String { directory + "/agentd-transfer" }
}

/// Asked how to call it, the plugin says so and succeeds; a wrong call is a usage error (exit 2).
@Test func transferHelpPrintsItsUsageAndAWrongCallExitsTwo() throws {
    let help = try runCommand(Binaries.transfer, ["--help"])
    #expect(help.status == 0 && help.stdout.hasPrefix("usage: transfer [--sha256 HEX]"), "\(help)")
    let wrong = try runCommand(Binaries.transfer, ["--bogus"])
    #expect(wrong.status == 2 && wrong.stderr.contains("unknown option --bogus"), "\(wrong)")
}

/// The transfer plugin (issue 15, docs/transfer.md) against a real nginx on 127.0.0.1.
@Suite(.serialized, .enabled(if: NginxServer.available, "nginx is not installed (apt-get install nginx; install-deps.sh does)"))
struct TransferPluginTests {
    /// Removed at the end of each test.
    let sandbox: Sandbox
    var scratch: String { sandbox.root }

    init() throws {
        sandbox = try Sandbox()
    }

    func transfer(_ arguments: [String], checkpoint: String? = nil) throws -> CommandResult {
        var environment = ["PATH": "/usr/bin:/bin"]
        environment["AGENTD_CHECKPOINT"] = checkpoint
        return try runCommand(Binaries.transfer, arguments, environment: environment)
    }

    @Test func aFiftyMegabyteDownloadCompletesVerifiesAndNamesItsResult() throws {
        let server = try NginxServer()
        let digest = try server.serve("f50.bin", bytes: 50_000_000)
        let destination = scratch + "/f50.bin"
        // Credentials in the userinfo and the query must not reach the log.
        let url = "http://user:hunter2@127.0.0.1:\(server.port)/f50.bin?token=sesame"
        let result = try transfer(["--sha256", digest, url, destination])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.split(separator: "\n").last == "RESULT=\(destination)")
        #expect(try sha256(of: destination) == digest)
        #expect(!FileManager.default.fileExists(atPath: destination + ".part"))
        #expect(result.stdout.contains("PROGRESS=50000000/50000000"))
        #expect(result.stdout.contains("CHECKPOINT=transfer/1 "))
        for secret in ["hunter2", "sesame", "user:"] {
            #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret), "\(secret) was printed")
        }
    }

    @Test func aFileChangedOnTheServerBetweenRunsIsDownloadedAgainFromZero() throws {
        let server = try NginxServer(slowRate: "1m")
        try server.serve("nightly.bin", bytes: 6_000_000)
        let destination = scratch + "/nightly.bin"
        let first = try interruptedTransfer(server.url("slow/nightly.bin"), destination, afterBytes: 500_000)
        #expect(first.status == 17, "stderr: \(first.stderr)")
        let checkpoint = try #require(first.checkpoint, "no CHECKPOINT= before exiting: \(first.stdout)")
        // A new version, of another size: another ETag.
        let newDigest = try server.serve("nightly.bin", bytes: 3_000_000)
        let second = try transfer([server.url("nightly.bin"), destination], checkpoint: checkpoint)
        #expect(second.status == 0, "stderr: \(second.stderr)")
        #expect(try sha256(of: destination) == newDigest)
        // The second request asked for the rest of the old version and got the whole new one.
        let last = try #require(server.requests.last)
        #expect(last.hasPrefix("200 GET /nightly.bin range=bytes="), "\(last)")
        #expect(second.stderr.contains("starting again from zero"))
    }

    @Test func anUnchangedFileResumesWithARangeRequest() throws {
        let server = try NginxServer(slowRate: "1m")
        let digest = try server.serve("same.bin", bytes: 4_000_000)
        let destination = scratch + "/same.bin"
        let first = try interruptedTransfer(server.url("slow/same.bin"), destination, afterBytes: 500_000)
        #expect(first.status == 17, "stderr: \(first.stderr)")
        // Well inside the default 5 s grace period, on a loaded machine too.
        #expect(first.stopping < 3, "took \(first.stopping) s to stop after SIGTERM")
        // PROGRESS= at most ten times a second (and one more for the first).
        let progressLines = first.stdout.split(separator: "\n").filter { $0.hasPrefix("PROGRESS=") }.count
        #expect(progressLines >= 1 && Double(progressLines) <= first.ran * 10 + 1, "\(progressLines) in \(first.ran) s")
        let checkpoint = try #require(first.checkpoint)
        let kept = try #require(try FileManager.default.attributesOfItem(atPath: destination + ".part")[.size] as? Int)
        #expect(checkpoint.hasPrefix("transfer/1 \(kept) etag \""))
        let second = try transfer(["--sha256", digest, server.url("same.bin"), destination], checkpoint: checkpoint)
        #expect(second.status == 0, "stderr: \(second.stderr)")
        #expect(try sha256(of: destination) == digest)
        let last = try #require(server.requests.last)
        #expect(last.hasPrefix("206 GET /same.bin range=bytes=\(kept)- if-range=\""), "\(last)")
        #expect(last.hasSuffix("sent=\(4_000_000 - kept)"), "\(last)")
    }

    @Test func httpErrorsAndARefusedConnectionExitWithTheirDocumentedStatuses() throws {
        let server = try NginxServer()
        let refused = try #require(BoundSocket())
        let cases: [(String, Int32)] = [
            (server.url("missing.bin"), 10),
            (server.url("status/403"), 11),
            (server.url("status/500"), 12),
            (server.url("status/503"), 12),
            ("http://127.0.0.1:\(refused.port)/f.bin", 13),
        ]
        for (url, status) in cases {
            let destination = scratch + "/error.bin"
            let result = try transfer([url, destination])
            #expect(result.status == status, "\(url): exit \(result.status), stderr: \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: destination + ".part"), "\(url) left an empty .part")
            #expect(!FileManager.default.fileExists(atPath: destination))
        }
        #expect(try transfer(["not-a-url", scratch + "/x"]).status == 2)
    }

    @Test func aChecksumMismatchFailsAndKeepsThePartFileForInspection() throws {
        let server = try NginxServer()
        try server.serve("f.bin", bytes: 1_000_000)
        let destination = scratch + "/f.bin"
        let wrong = String(repeating: "0", count: 64)
        let result = try transfer(["--sha256", wrong, server.url("f.bin"), destination])
        #expect(result.status == 16, "stderr: \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: destination))
        let size = try FileManager.default.attributesOfItem(atPath: destination + ".part")[.size] as? Int
        #expect(size == 1_000_000)
        #expect(!result.stdout.contains("RESULT="))
        #expect(result.stderr.contains("kept as \(destination).part"))
    }

    struct Interrupted {
        var status: Int32
        var stdout: String
        var stderr: String
        /// From the start to the exit, and from SIGTERM to the exit.
        var ran: Double
        var stopping: Double
        /// The last CHECKPOINT= value printed.
        var checkpoint: String? {
            stdout.split(separator: "\n").last { $0.hasPrefix("CHECKPOINT=") }.map { String($0.dropFirst("CHECKPOINT=".count)) }
        }
    }

    /// Starts the plugin, waits (inotify on DEST.part) until `afterBytes` are on disk, sends SIGTERM
    /// and collects what it printed and how it exited.
    func interruptedTransfer(_ url: String, _ destination: String, afterBytes: Int) throws -> Interrupted {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binaries.transfer)
        process.arguments = [url, destination]
        process.environment = ["PATH": "/usr/bin:/bin"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        // DEST.part exists before the plugin starts, so inotify can watch it from the first byte.
        #expect(FileManager.default.createFile(atPath: destination + ".part", contents: nil))
        let waiter = try #require(InotifyWaiter.fileGrowth(destination + ".part"))
        let started = Date()
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while partSize(destination) < afterBytes && Date() < deadline && process.isRunning {
            waiter.wait(seconds: 1)
        }
        #expect(partSize(destination) >= afterBytes, "the download did not reach \(afterBytes) bytes in 30 s")
        let terminated = Date()
        kill(process.processIdentifier, SIGTERM)
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let ended = Date()
        return Interrupted(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                           stderr: String(decoding: stderr, as: UTF8.self), ran: ended.timeIntervalSince(started),
                           stopping: ended.timeIntervalSince(terminated))
    }

    func partSize(_ destination: String) -> Int {
        var info = stat()
        return stat(destination + ".part", &info) == 0 ? Int(info.st_size) : 0
    }
}
