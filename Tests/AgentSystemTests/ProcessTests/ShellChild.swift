// SPDX-License-Identifier: Apache-2.0
import CShim
import Foundation
import Glibc
@testable import AgentSystem

/// `/bin/sh -c script` spawned as a plugin is (PluginSpawner, on the real kernel), read to its
/// end and reaped: what it printed and how it exited, or why it did not start.
enum ShellChild {
    struct Outcome {
        var output: String
        var exitStatus: Int32?
        var failure: SpawnFailure?
    }

    /// `configure` sets what the test is about on the request (a sandbox, a cgroup).
    static func run(_ script: String, configure: (inout SpawnRequest) -> Void) throws -> Outcome {
        let safety = PluginSafety(agentUID: 0, agentUserName: "root")
        guard case .success(let shell) = safety.check("/bin/sh") else { throw POSIXError(.ENOENT) }
        var request = SpawnRequest(executable: shell, arguments: ["/bin/sh", "-c", script], environment: ["PATH=/usr/bin:/bin"])
        configure(&request)
        let child: SpawnedChild
        switch PluginSpawner.spawn(request) {
        case .success(let started): child = started
        case .failure(let failure): return Outcome(output: "", exitStatus: nil, failure: failure)
        }
        defer { close(child.pidfd); close(child.stdoutFD); close(child.stderrFD) }
        // The test may wait: make the pipe blocking and read to EOF.
        _ = fcntl(child.stdoutFD, F_SETFL, fcntl(child.stdoutFD, F_GETFL) & ~O_NONBLOCK)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(child.stdoutFD, &buffer, buffer.count)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        var code: Int32 = 0
        var status: Int32 = 0
        _ = cshim_pidfd_reap_blocking(child.pidfd, &code, &status)
        while !child.handshake.read() {}
        return Outcome(output: String(decoding: bytes, as: UTF8.self), exitStatus: status, failure: child.handshake.failure)
    }
}
