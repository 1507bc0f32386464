// SPDX-License-Identifier: Apache-2.0
import AgentTestSupport
import Foundation
import Testing

/// The transfer plugin against servers nginx will not imitate (issue 28 item 12): giant headers
/// are a protocol fault (exit 18, not retried), and a trickle below the minimum speed ends with the
/// network status (exit 13, resumed by the next run), not never.
@Suite(.enabled(if: ScriptedHTTPServer.available, "python3 is not installed (the scripted server is Python)"))
struct TransferHostileServerTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    @Test func aMegabyteOfResponseHeadersIsAProtocolFaultNotANetworkOne() throws {
        for mode in ["headers", "header-line"] {
            let server = try ScriptedHTTPServer(mode)
            let destination = sandbox.root + "/\(mode).bin"
            let run = try BoundedRun([server.url("f.bin"), destination])
            #expect(run.status == 18, "\(mode): exit \(run.status), stderr: \(run.stderr)")
            #expect(run.stderr.contains("header"), "\(mode): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: destination))
            #expect(!FileManager.default.fileExists(atPath: destination + ".part"), "\(mode) left an empty .part")
        }
    }

    /// One byte every 10 s is 0.1 B/s: given up once it has been below the minimum for
    /// --min-speed-time (3 s here; 60 s by default), with the minimum named.
    @Test func aServerTricklingOneByteEveryTenSecondsIsGivenUpWithTheNetworkStatus() throws {
        let server = try ScriptedHTTPServer("trickle", "10")
        let run = try BoundedRun(["--min-speed-time", "3", server.url("f.bin"), sandbox.root + "/f.bin"], deadline: 30)
        #expect(!run.timedOut, "still running after 30 s")
        #expect(run.status == 13, "exit \(run.status), stderr: \(run.stderr)")
        #expect(run.stderr.contains("the minimum is 1000 bytes/s over 3 s"), "\(run.stderr)")
        // The server sent no validator: nothing to resume against, and the message says so.
        #expect(run.stderr.contains("the next run starts over: the server sent no ETag or Last-Modified"), "\(run.stderr)")
        // libcurl checks about once a second: 3 s and a little, with room for a loaded machine.
        #expect(run.seconds < 20, "took \(run.seconds) s")
    }

    /// 20 bytes a second passed the old floor (1 B/s) for ever; the default minimum is 1 kB/s.
    @Test func aTrickleAboveOneBytePerSecondIsStillBelowTheDefaultMinimum() throws {
        let server = try ScriptedHTTPServer("trickle", "0.05")
        let run = try BoundedRun(["--min-speed-time", "3", server.url("f.bin"), sandbox.root + "/f.bin"], deadline: 30)
        #expect(!run.timedOut, "still running after 30 s")
        #expect(run.status == 13, "exit \(run.status), stderr: \(run.stderr)")
        #expect(run.stderr.contains("Less than 1000 bytes/sec"), "\(run.stderr)")
    }

    /// A lower minimum lets the same trickle go on: --min-speed is the way to keep a slow server.
    @Test func aLowerMinimumSpeedKeepsASlowServer() throws {
        let server = try ScriptedHTTPServer("trickle", "0.05")
        let run = try BoundedRun(["--min-speed", "5", "--min-speed-time", "2", server.url("f.bin"), sandbox.root + "/f.bin"],
                                 deadline: 6)
        #expect(run.timedOut, "a 20 B/s server was given up at --min-speed 5: exit \(run.status), \(run.stderr)")
    }
}
