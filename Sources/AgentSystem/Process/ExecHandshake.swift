// SPDX-License-Identifier: Apache-2.0
import CShim
import Glibc

/// How a started child's way to its `execve` ended, told by its status pipe (see CShimSpawn.h):
/// EOF once it has exec'd or exited, a report before an exit that ended a failed start. The
/// memory the child ran on is released only then.
///
/// One per spawn; the owner (``PluginProcess``) watches `fd` on its loop and calls ``read()``
/// when it is readable, and before it takes the child's exit for the plugin's.
public final class ExecHandshake {
    public let fd: Int32
    private var block: UnsafeMutableRawPointer?
    /// Set when the child reported a failure before execve.
    public private(set) var failure: SpawnFailure?
    /// The child has exec'd or exited: nothing more will come.
    public private(set) var isSettled = false

    init(fd: Int32, block: UnsafeMutableRawPointer?) {
        self.fd = fd
        self.block = block
    }

    deinit {
        close(fd)
        // A child that has not settled may still run on its block: left to the process's end.
        if isSettled { cshim_spawn_release(block) }
    }

    /// Reads what has come without waiting; returns whether the handshake is settled.
    @discardableResult
    public func read() -> Bool {
        guard !isSettled else { return true }
        var code: Int32 = 0
        var step: UnsafePointer<CChar>?
        var item: Int32 = -1
        let settled = cshim_spawn_status_item(fd, &code, &step, &item) == 1
        if code != 0 {
            failure = SpawnFailure(step: step.map { String(cString: $0) } ?? "exec", errno: code,
                                   item: item >= 0 ? Int(item) : nil)
        }
        if settled {
            isSettled = true
            cshim_spawn_release(block)
            block = nil
        }
        return settled
    }
}
