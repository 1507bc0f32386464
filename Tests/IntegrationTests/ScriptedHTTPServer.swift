// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc

/// A misbehaving HTTP server on 127.0.0.1, in Python: what nginx will not do on request. `mode`:
/// `headers` (1 MiB of header lines), `header-line` (one header line of 1 MiB), `trickle SECONDS`
/// (a 1 MB body, one byte every SECONDS).
final class ScriptedHTTPServer {
    static let python = "/usr/bin/python3"
    static var available: Bool { FileManager.default.isExecutableFile(atPath: python) }

    let port: UInt16
    private let process = Process()

    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    static let script = #"""
        import select, socket, sys, threading
        mode = sys.argv[1]
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        print(server.getsockname()[1], flush=True)
        def answer(client):
            try:
                client.recv(65536)
                if mode == "headers":
                    client.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n")
                    for index in range(1024):
                        client.sendall(b"X-Filler-%04d: " % index + b"a" * 1006 + b"\r\n")
                    client.sendall(b"\r\nhello")
                elif mode == "header-line":
                    client.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\nhello")
                elif mode == "trickle":
                    client.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n")
                    # A byte every N s is the scenario; between bytes the server waits for the
                    # client to hang up (the transfer giving up), at most N s.
                    while True:
                        client.sendall(b"x")
                        readable, _, _ = select.select([client], [], [], float(sys.argv[2]))
                        if readable and not client.recv(65536):
                            break
            except OSError:
                pass
            client.close()
        while True:
            connection, _ = server.accept()
            threading.Thread(target=answer, args=(connection,), daemon=True).start()
        """#

    init(_ arguments: String...) throws {
        process.executableURL = URL(fileURLWithPath: ScriptedHTTPServer.python)
        process.arguments = ["-c", ScriptedHTTPServer.script] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The port is printed once the socket listens: that line is the event waited for.
        let reader = out.fileHandleForReading.fileDescriptor
        var entry = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
        var line = ""
        let deadline = Date().addingTimeInterval(20)
        while !line.hasSuffix("\n") && Date() < deadline {
            guard poll(&entry, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000))) > 0 else { break }
            var byte: UInt8 = 0
            guard read(reader, &byte, 1) == 1 else { break }
            line.append(Character(UnicodeScalar(byte)))
        }
        guard let port = UInt16(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw StartFailure(description: "the scripted server did not print its port within 20 s: \(line)")
        }
        self.port = port
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }
}

/// A run of the plugin (as root, or through `setpriv` as `user`) that is killed if it has not
/// ended by the deadline: a test of "it does not hang" must not hang itself.
struct BoundedRun {
    var status: Int32
    var stdout: String
    var stderr: String
    var seconds: Double
    var timedOut: Bool

    init(_ arguments: [String], as user: TestUser? = nil, checkpoint: String? = nil, deadline: Double = 60) throws {
        let process = Process()
        if let user {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = user.setpriv + [Binaries.transfer] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: Binaries.transfer)
            process.arguments = arguments
        }
        var environment = ["PATH": "/usr/bin:/bin"]
        environment["AGENTD_CHECKPOINT"] = checkpoint
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        let started = Date()
        try process.run()
        // Drained while it runs, so a chatty run cannot fill a pipe and stall.
        let drained = DispatchGroup()
        let collected = OutputBox()
        for (pipe, isError) in [(out, false), (err, true)] {
            DispatchQueue.global().async(group: drained) {
                collected.set(pipe.fileHandleForReading.readDataToEndOfFile(), isError: isError)
            }
        }
        timedOut = ended.wait(timeout: .now() + deadline) == .timedOut
        if timedOut {
            kill(process.processIdentifier, SIGKILL)
            ended.wait()
        }
        seconds = Date().timeIntervalSince(started)
        drained.wait()
        status = process.terminationStatus
        stdout = String(decoding: collected.stdout, as: UTF8.self)
        stderr = String(decoding: collected.stderr, as: UTF8.self)
    }
}

/// What the two drain threads read, handed back under a lock.
final class OutputBox: @unchecked Sendable {
    private let lock = NSLock()
    private var out = Data(), err = Data()
    var stdout: Data { lock.withLock { out } }
    var stderr: Data { lock.withLock { err } }

    func set(_ data: Data, isError: Bool) {
        lock.withLock { if isError { err = data } else { out = data } }
    }
}
