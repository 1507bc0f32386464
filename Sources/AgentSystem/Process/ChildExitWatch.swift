// SPDX-License-Identifier: Apache-2.0
import AgentCore
import CShim
import Glibc

/// Reaps a child of the agent on the loop when it exits, through a pidfd. The watch ends as soon
/// as the process is gone, also when another reap took it first (a run's end reaps every exited
/// child that is no live run's, ``StrayChildren``): its pidfd then stays readable with nothing
/// to reap, and watched any longer it would wake the level-triggered loop without end.
///
/// Loop-thread only. The watch keeps itself until the exit or ``cancel()``.
public final class ChildExitWatch {
    private let loop: any EventLooping
    private let pidfd: Int32
    private var token: WatchToken?

    /// Starts watching `pid`; nil when it has no pidfd (it has gone already) or the loop refuses
    /// the watch. `exited` gets how it ended, or nil when another reap took it.
    public init?(pid: pid_t, loop: any EventLooping, exited: @escaping (ProcessTermination?) -> Void) {
        let pidfd = cshim_pidfd_open(pid)
        guard pidfd >= 0 else { return nil }
        self.loop = loop
        self.pidfd = pidfd
        do {
            token = try loop.watch(fd: pidfd, events: .readable, urgent: false, everySlice: false) { [self] _ in
                reap(exited)
            }
        } catch {
            close(pidfd)
            return nil
        }
    }

    /// Stops watching without reaping (the agent is going away).
    public func cancel() {
        guard let token else { return }
        loop.unwatch(token)
        self.token = nil
        close(pidfd)
    }

    private func reap(_ exited: (ProcessTermination?) -> Void) {
        var code: Int32 = 0
        var status: Int32 = 0
        let reaped = cshim_pidfd_reap(pidfd, &code, &status)
        if reaped == 0 { return }
        cancel()
        guard reaped == 1 else { return exited(nil) }
        exited(code == CSHIM_CLD_EXITED ? .exited(status) : .signaled(status))
    }
}
