// SPDX-License-Identifier: Apache-2.0
import CShim
import Glibc

/// A thread that runs jobs handed over by the loop, in order, and posts what came of them back to
/// the loop through a mailbox: for work that waits on the disk (the state database's commits,
/// syncs and checkpoints), which must never stall the loop. The queue is bounded (`capacity`):
/// `submit` refuses beyond it and the caller keeps the job (the state writer's own bounded queue).
/// The thread starts with the first job and sleeps on an eventfd, without a timer, between jobs;
/// it takes everything queued at once (`perform` sees a batch, so it can share one sync among the
/// jobs that came while the last one ran).
public final class JobThread<Job: Sendable, Outcome: Sendable>: Sendable {
    private struct Shared {
        var jobs: [Job] = []
        var stopping = false
        var thread: pthread_t?
        var failedToStart = false
    }

    public let capacity: Int
    private let shared: ThreadLock<Shared>
    private let wakeFD: Int32
    private let report: MailboxSender<Outcome>
    private let perform: @Sendable ([Job]) -> [Outcome]

    /// `perform` runs on the thread with the jobs queued since its last run, in order.
    public init(capacity: Int, report: MailboxSender<Outcome>, perform: @escaping @Sendable ([Job]) -> [Outcome]) {
        self.capacity = max(1, capacity)
        self.report = report
        self.perform = perform
        shared = ThreadLock(Shared())
        wakeFD = cshim_eventfd()
    }

    deinit {
        if wakeFD >= 0 { close(wakeFD) }
    }

    public enum Handover: Equatable {
        /// Queued for the thread.
        case queued
        /// The queue holds `capacity` jobs: keep the job and hand it over later.
        case full
        /// The thread cannot start (no eventfd, no thread) or has finished: run it yourself.
        case unavailable
    }

    /// Hands `job` to the thread. `beyondCapacity`: queued even when the queue is full (a job
    /// the caller cannot keep, bounded by its own means: one sync per waiting request).
    public func submit(_ job: Job, beyondCapacity: Bool = false) -> Handover {
        let state = shared.withLock { shared -> Handover in
            if shared.stopping || shared.failedToStart || wakeFD < 0 { return .unavailable }
            if shared.jobs.count >= capacity, !beyondCapacity { return .full }
            shared.jobs.append(job)
            return .queued
        }
        guard state == .queued else { return state }
        if shared.withLock({ $0.thread != nil }) || start() {
            _ = cshim_eventfd_signal(wakeFD)
            return .queued
        }
        // The job is taken back: the caller runs it.
        _ = shared.withLock { $0.jobs.popLast() }
        return .unavailable
    }

    /// Jobs queued and not yet taken by the thread.
    public var waiting: Int { shared.withLock { $0.jobs.count } }

    /// At the stop: the jobs queued so far are run and their outcomes posted, then the thread
    /// ends; returns once it has. Later `submit`s answer `.unavailable`.
    public func finish() {
        let thread = shared.withLock { shared -> pthread_t? in
            shared.stopping = true
            return shared.thread
        }
        guard let thread else { return }
        _ = cshim_eventfd_signal(wakeFD)
        pthread_join(thread, nil)
        shared.withLock { $0.thread = nil }
    }

    private func start() -> Bool {
        let needed = shared.withLock { $0.thread == nil && !$0.failedToStart && !$0.stopping }
        guard needed else { return shared.withLock { $0.thread != nil } }
        switch HelperThread.start(joinable: true, { self.run() }) {
        case .success(let handle):
            shared.withLock { $0.thread = handle }
            return true
        case .failure:
            shared.withLock { $0.failedToStart = true }
            return false
        }
    }

    private func run() {
        while true {
            let (batch, stopping) = shared.withLock { shared -> ([Job], Bool) in
                let batch = shared.jobs
                shared.jobs = []
                return (batch, shared.stopping)
            }
            if !batch.isEmpty {
                _ = report.post(contentsOf: perform(batch))
                continue
            }
            if stopping { return }
            var entry = pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, -1)
            _ = cshim_eventfd_drain(wakeFD)
        }
    }
}
