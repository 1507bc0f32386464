// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The daemon's few threads besides the loop (the config watcher, the cgroup worker, the state
/// log's sync worker): each is created with every signal blocked, so that not even its first
/// instruction can take a signal meant for the loop's signalfd, and the creator's mask is
/// restored after.
enum HelperThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Starts a thread running `body` once; `joinable` ones are waited for with `pthread_join`,
    /// the others clean up after themselves. Returns the error number when it cannot start.
    static func start(joinable: Bool, _ body: @escaping () -> Void) -> Result<pthread_t, SystemError> {
        var all = sigset_t()
        var previous = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }

        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if !joinable { pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED)) }

        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var handle = pthread_t()
        let result = pthread_create(&handle, &attributes, { raw in
            guard let raw else { return nil }
            Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return .failure(SystemError(call: "pthread_create", errno: result))
        }
        return .success(handle)
    }
}
