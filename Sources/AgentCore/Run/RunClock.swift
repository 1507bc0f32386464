// SPDX-License-Identifier: Apache-2.0
/// A deadline that counts only the time a run is not frozen: `MaxRuntime=` after launch, paused
/// time excluded (DESIGN §6, `OnConditionLost=pause`). Monotonic time, as `Duration` since an
/// arbitrary origin, like every instant the run lifecycle gets.
struct PausableDeadline: Hashable, Sendable {
    let limit: Duration
    let startedAt: Duration
    /// Time spent frozen so far, pauses that ended only.
    private(set) var pausedTotal: Duration = .zero
    private var pausedSince: Duration?

    init(limit: Duration, startedAt: Duration) {
        self.limit = limit
        self.startedAt = startedAt
    }

    /// When the limit is reached; nil while frozen (the clock stands still).
    var dueAt: Duration? {
        pausedSince == nil ? DurationArithmetic.sum(DurationArithmetic.sum(startedAt, limit), pausedTotal) : nil
    }

    mutating func pause(at now: Duration) {
        if pausedSince == nil { pausedSince = now }
    }

    mutating func resume(at now: Duration) {
        guard let since = pausedSince else { return }
        pausedSince = nil
        pausedTotal = DurationArithmetic.sum(pausedTotal, max(.zero, now - since))
    }
}

/// A continued run's `ProgressTimeout=`: it is expired when no `PROGRESS=` line came for this
/// long. One deadline per window, not one per line — a plugin printing a thousand lines a second
/// moves nothing; when the window ends, it either expires the run or moves to the end of the
/// window that the last line opened. Frozen time does not count, as for ``PausableDeadline``.
struct ProgressWindow: Hashable, Sendable {
    let timeout: Duration
    /// The last `PROGRESS=` line (or the launch), shifted by the pauses since.
    private(set) var lastProgressAt: Duration
    /// The one deadline: the end of the window last looked at.
    private(set) var checkAt: Duration
    private var pausedSince: Duration?

    init(timeout: Duration, startedAt: Duration) {
        self.timeout = timeout
        lastProgressAt = startedAt
        checkAt = DurationArithmetic.sum(startedAt, timeout)
    }

    /// When the window is next looked at; nil while frozen.
    var dueAt: Duration? { pausedSince == nil ? checkAt : nil }

    /// Since when the run has been silent for the whole timeout (the expiry's due time).
    var silentUntil: Duration { DurationArithmetic.sum(lastProgressAt, timeout) }

    mutating func progressed(at now: Duration) {
        guard pausedSince == nil else { return }
        lastProgressAt = max(lastProgressAt, now)
    }

    /// At the window's end: true when the run has been silent for the whole timeout; otherwise
    /// the window moves to the end of the one the last line opened.
    mutating func isSilent(at now: Duration) -> Bool {
        if silentUntil <= now { return true }
        checkAt = silentUntil
        return false
    }

    mutating func pause(at now: Duration) {
        if pausedSince == nil { pausedSince = now }
    }

    /// The clock goes on from where it stopped: the silence before the pause still counts.
    mutating func resume(at now: Duration) {
        guard let since = pausedSince else { return }
        pausedSince = nil
        let frozenFor = max(.zero, now - since)
        lastProgressAt = DurationArithmetic.sum(lastProgressAt, frozenFor)
        checkAt = DurationArithmetic.sum(checkAt, frozenFor)
    }
}
