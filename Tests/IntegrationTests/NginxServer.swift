// SPDX-License-Identifier: Apache-2.0
import AgentTestSupport
import Foundation
import Glibc

/// A real nginx on 127.0.0.1, configured by the test in a temporary directory: static files with
/// Range and ETag support, `/slow/` (the same files at `limit_rate`), `/status/403`, `/status/500` and `/status/503` answering that, and
/// an access log that records each request's status, Range and If-Range.
final class NginxServer {
    static let binary = "/usr/sbin/nginx"
    static var available: Bool { FileManager.default.isExecutableFile(atPath: binary) }

    let root: String
    let port: UInt16
    private let process = Process()
    var files: String { root + "/www" }
    var accessLog: String { root + "/access.log" }

    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    init(slowRate: String = "2m") throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("agentd-nginx-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: root + "/www", withIntermediateDirectories: true)
        chmod(root, 0o755)
        chmod(root + "/www", 0o755)
        port = try NginxServer.freePort()
        try config(slowRate: slowRate).write(toFile: root + "/nginx.conf", atomically: false, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: NginxServer.binary)
        process.arguments = ["-p", root, "-c", root + "/nginx.conf", "-e", root + "/error.log"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        // nginx writes its pid file once its listening socket is open: watched from before the start.
        let changes = InotifyWaiter.directoryChanges(root)
        try process.run()
        try waitUntilListening(changes)
    }

    deinit {
        if process.isRunning {
            // SIGKILL: nginx without a master process keeps the signal mask it was spawned with,
            // and a test's dispatch thread has SIGTERM blocked. Its access log is written per request.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: root)
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    /// Writes `bytes` random bytes to www/NAME (atomically, so nginx never serves half of it);
    /// returns its SHA-256.
    @discardableResult
    func serve(_ name: String, bytes: Int) throws -> String {
        var data = Data(count: bytes)
        data.withUnsafeMutableBytes { buffer in
            var generator = SystemRandomNumberGenerator()
            let words = buffer.bindMemory(to: UInt64.self)
            for index in words.indices { words[index] = generator.next() }
        }
        let path = files + "/" + name
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        chmod(path, 0o644)
        return try sha256(of: path)
    }

    /// The access log's lines: "STATUS METHOD URI range=… if-range=… sent=N".
    var requests: [String] {
        ((try? String(contentsOfFile: accessLog, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    private func config(slowRate: String) -> String {
        // The master process alone serves (no workers to outlive the test); as root, it would
        // otherwise switch to nobody, who may not read the test's files.
        """
        daemon off;
        master_process off;
        \(getuid() == 0 ? "user root;" : "")
        pid \(root)/nginx.pid;
        error_log \(root)/error.log;
        events { worker_connections 64; }
        http {
            log_format transfer escape=none '$status $request_method $uri range=$http_range if-range=$http_if_range sent=$body_bytes_sent';
            access_log \(root)/access.log transfer;
            client_body_temp_path \(root)/body; proxy_temp_path \(root)/proxy; fastcgi_temp_path \(root)/fastcgi;
            uwsgi_temp_path \(root)/uwsgi; scgi_temp_path \(root)/scgi;
            server {
                listen 127.0.0.1:\(port);
                root \(root)/www;
                location /slow/ { alias \(root)/www/; limit_rate \(slowRate); }
                location = /status/403 { return 403; }
                location = /status/500 { return 500; }
                location = /status/503 { return 503; }
            }
        }
        """
    }

    /// A port nothing listens on right now (bound to port 0, then closed for nginx to take).
    static func freePort() throws -> UInt16 {
        let socket = BoundSocket()
        guard let port = socket?.port else { throw StartFailure(description: "cannot bind a TCP socket on 127.0.0.1") }
        return port
    }

    /// Waits for nginx to accept a connection, or fails with its error log.
    private func waitUntilListening(_ changes: InotifyWaiter?) throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: root + "/nginx.pid"), NginxServer.accepts(port: port) { return }
            guard process.isRunning else { break }
            // Woken by the pid file (or the error log); a second at most, to notice nginx exiting.
            changes?.wait(seconds: min(1, deadline.timeIntervalSinceNow))
        }
        let log = (try? String(contentsOfFile: root + "/error.log", encoding: .utf8)) ?? ""
        throw StartFailure(description: "nginx did not listen on 127.0.0.1:\(port) within 20 s: \(log)")
    }

    static func accepts(port: UInt16) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = BoundSocket.loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

/// A TCP socket bound to 127.0.0.1 and never listening: a connection to its port is refused, and
/// no other process can take the port while it is open.
final class BoundSocket {
    let descriptor: Int32
    let port: UInt16

    init?() {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = BoundSocket.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return address
    }
}

/// sha256sum's digest of a file.
func sha256(of path: String) throws -> String {
    let result = try runCommand("/usr/bin/sha256sum", [path])
    return String(result.stdout.prefix { $0 != " " })
}
