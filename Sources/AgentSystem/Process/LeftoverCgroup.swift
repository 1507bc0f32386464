// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The cgroup of a run whose agent died: killed as a whole, then removed once the kernel says it
/// is empty. `cgroup.kill` is asynchronous, so removal waits on `cgroup.events` (`populated 0`,
/// signalled as EPOLLPRI) on the event loop — nothing sleeps or polls.
public final class LeftoverCgroup {
    public let path: String
    private let eventsFD: Int32
    private let loop: EventLoop
    private var watch: WatchToken?
    private var onRemoved: ((Result<Void, SystemError>) -> Void)?

    /// Opens the existing cgroup at `path`; nil (ENOENT) when it has already gone.
    public init?(path: String, loop: EventLoop) throws(SystemError) {
        let events = open(path + "/cgroup.events", O_RDONLY | O_CLOEXEC)
        guard events >= 0 else {
            if errno == ENOENT { return nil }
            throw SystemError.last("open", path: path + "/cgroup.events")
        }
        self.path = path
        self.eventsFD = events
        self.loop = loop
    }

    deinit {
        if let watch { loop.unwatch(watch) }
        close(eventsFD)
    }

    /// SIGKILL to everything in it.
    public func killAll() {
        CgroupFiles.killAll(path)
    }

    /// Removes the cgroup (and then its parent, the dead agent's `agentd-runs.PID`, unless that
    /// is `keepParent` or still holds other runs) as soon as it is empty: now, or when
    /// `cgroup.events` says so. `done` is called once, on the loop.
    public func removeWhenEmpty(keepParent: String?, _ done: @escaping (Result<Void, SystemError>) -> Void) {
        onRemoved = { [path] result in
            if case .success = result {
                let parent = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
                if !parent.isEmpty, parent != keepParent { rmdir(parent) }
            }
            done(result)
        }
        do {
            // Armed before looking, so an emptying between the look and the watch is not missed.
            watch = try loop.watch(fd: eventsFD, events: .priority) { [unowned self] _ in self.check() }
        } catch {
            let code = (error as? SystemError)?.errno ?? EIO
            finish(.failure(SystemError(call: "epoll_ctl(ADD)", errno: code, path: path + "/cgroup.events")))
            return
        }
        check()
    }

    private func check() {
        guard onRemoved != nil, !CgroupFiles.isPopulated(eventsFD: eventsFD) else { return }
        finish(rmdir(path) == 0 || errno == ENOENT ? .success(()) : .failure(SystemError.last("rmdir", path: path)))
    }

    private func finish(_ result: Result<Void, SystemError>) {
        if let watch { loop.unwatch(watch); self.watch = nil }
        let done = onRemoved
        onRemoved = nil
        // The owner may drop this object from `done`: keep it alive until the call returns.
        withExtendedLifetime(self) { done?(result) }
    }
}
