// SPDX-License-Identifier: Apache-2.0
/// One step of stopping a run, modelled on swift-subprocess's `TeardownStep`.
public enum TeardownStep: Hashable, Sendable {
    /// Send this signal to the run's whole process group (or cgroup).
    case signal(Int32)
    /// Give the run this long before the next step.
    case wait(Duration)
    /// SIGKILL everything left of the run; always the last step.
    case kill
}

/// How a run is stopped, as data (DESIGN §5 "Expiration", §12): by default SIGTERM and SIGCONT,
/// then `GracePeriod`, then SIGKILL. Every teardown ends in ``TeardownStep/kill``, whatever it is
/// built from, so no run can outlive its teardown; and every signal is followed by SIGCONT, as
/// systemd does, because a stopped (SIGSTOP'd) process would only see the signal once continued:
/// without it a stopped plugin sleeps through its grace period and dies by SIGKILL.
public struct Teardown: Hashable, Sendable {
    public static let sigterm: Int32 = 15
    public static let sigkill: Int32 = 9
    public static let sigcont: Int32 = 18

    /// The steps in order; the last is always `.kill` and no other step is.
    public let steps: [TeardownStep]

    /// SIGTERM, SIGCONT, `gracePeriod`, SIGKILL. A grace of zero (or less) sends SIGKILL right
    /// after SIGTERM and SIGCONT, with no wait between.
    public init(gracePeriod: Duration) {
        self.init(steps: [.signal(Self.sigterm), .wait(gracePeriod)])
    }

    /// A custom sequence (e.g. SIGINT, wait, SIGTERM, wait), normalised so that it ends in
    /// exactly one `.kill`: steps after a `.kill` are dropped, a missing one is appended, and
    /// waits of zero or less are removed as they would wait for nothing. Each signal other than
    /// SIGCONT and SIGKILL is followed at once by SIGCONT (given or not), and a SIGCONT right
    /// after another is dropped.
    public init(steps: [TeardownStep]) {
        var normalised: [TeardownStep] = []
        for step in steps {
            switch step {
            case .kill:
                normalised.append(.kill)
                self.steps = normalised
                return
            case .wait(let duration):
                if duration > .zero { normalised.append(step) }
            case .signal(Self.sigcont):
                if normalised.last != .signal(Self.sigcont) { normalised.append(step) }
            case .signal(let signal):
                normalised.append(step)
                if signal != Self.sigkill { normalised.append(.signal(Self.sigcont)) }
            }
        }
        normalised.append(.kill)
        self.steps = normalised
    }

    /// The sum of the waits: how long after it starts the teardown sends SIGKILL.
    public var totalWait: Duration {
        steps.reduce(.zero) { total, step in
            if case .wait(let duration) = step { return DurationArithmetic.sum(total, duration) }
            return total
        }
    }
}

/// What the shell must do now for a teardown in progress.
public enum TeardownAction: Hashable, Sendable {
    /// Send this signal to the run's process group (or cgroup).
    case sendSignal(Int32)
    /// SIGKILL every process of the run (`cgroup.kill`, else the process group).
    case killAll
}

/// A teardown being carried out, in virtual time: the caller passes the monotonic clock in and
/// performs the actions that come out, and sleeps until ``nextDeadline``.
///
/// Deadlines are fixed when the teardown starts: each step is due at `startedAt` plus the waits
/// before it. A late ``advance(now:)`` therefore catches up and emits everything already due,
/// in order, so SIGKILL is never later than `startedAt + grace` plus the caller's own lateness —
/// the bound on how long a stopping run may live matters more than the grace it gets.
public struct TeardownProgress: Sendable {
    public let teardown: Teardown
    public let startedAt: Duration
    /// Index of the next step not yet carried out.
    private var next = 0
    /// When the step at `next` is due (waits before it included).
    private var dueAt: Duration

    public init(teardown: Teardown, startedAt: Duration) {
        self.teardown = teardown
        self.startedAt = startedAt
        self.dueAt = startedAt
    }

    /// True once `.killAll` has been emitted.
    public var isFinished: Bool { next >= teardown.steps.count }

    /// When ``advance(now:)`` will next have something to emit; nil once finished. For the
    /// default teardown this is `startedAt` (SIGTERM and SIGCONT are due at once), then
    /// `startedAt + grace`.
    public var nextDeadline: Duration? {
        // Waits emit nothing, so the deadline is that of the first signal or kill ahead.
        var deadline = dueAt
        for step in teardown.steps[next...] {
            guard case .wait(let duration) = step else { return deadline }
            deadline = DurationArithmetic.sum(deadline, duration)
        }
        return nil
    }

    /// Brings the next signal or kill forward to `deadline` when it is due later (a sleep
    /// announced while the run was already stopping: logind waits only so long); the steps
    /// after it follow at their usual distance.
    public mutating func hasten(to deadline: Duration) {
        guard let current = nextDeadline, current > deadline else { return }
        dueAt = dueAt - (current - deadline)
    }

    /// Emits, in order, every action due at or before `now`.
    public mutating func advance(now: Duration) -> [TeardownAction] {
        var actions: [TeardownAction] = []
        while next < teardown.steps.count, dueAt <= now {
            switch teardown.steps[next] {
            case .signal(let signal):
                actions.append(.sendSignal(signal))
            case .wait(let duration):
                dueAt = DurationArithmetic.sum(dueAt, duration)
            case .kill:
                actions.append(.killAll)
            }
            next += 1
        }
        return actions
    }
}
