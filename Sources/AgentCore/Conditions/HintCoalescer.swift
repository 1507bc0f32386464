// SPDX-License-Identifier: Apache-2.0
/// When to re-read sysfs after uevents (DESIGN §6: "a uevent is a hint to re-read sysfs; bursts
/// are debounced"). Pure: the shell passes the time and carries out the decisions.
///
/// A hint is read at once unless a coalescing window is open and the re-read that opened it
/// found nothing new; then it waits for the window to close. A window that closes with hints
/// waiting reads them and opens one twice as long (up to ``longestWindow``); one that closes
/// with none ends the burst. So a real change — an unplug, a plug right after it, a battery
/// reporting every half second — is read without delay, and a flood of hints that change
/// nothing costs about ten re-reads a second.
public struct HintCoalescer<Kind: Hashable & Sendable>: Sendable {
    public static var firstWindow: Duration { .milliseconds(10) }
    public static var longestWindow: Duration { .milliseconds(100) }

    /// What the shell must do now: re-read `kinds`, then report whether anything changed
    /// (``readFinished(changed:)``) and call ``windowClosed(now:)`` at `windowEndsAt`.
    public struct Read: Sendable, Equatable {
        public var kinds: Set<Kind>
        public var windowEndsAt: Duration
    }

    private var pending: Set<Kind> = []
    private var windowEndsAt: Duration?
    private var window = firstWindow
    private var lastReadChanged = false

    public init() {}

    /// A hint arrived at `now` (time since any fixed origin). Returns the read to do now, if any.
    public mutating func hint(_ kind: Kind, now: Duration) -> Read? {
        pending.insert(kind)
        if windowEndsAt != nil, !lastReadChanged { return nil }
        return read(now: now, window: Self.firstWindow)
    }

    /// The last read changed (or did not change) something the policy uses.
    public mutating func readFinished(changed: Bool) {
        lastReadChanged = changed
    }

    /// The window's end came (the shell's timer fired; `now` is the time it ran). Returns the
    /// coalesced read, if hints waited.
    public mutating func windowClosed(now: Duration) -> Read? {
        guard windowEndsAt != nil else { return nil }
        windowEndsAt = nil
        guard !pending.isEmpty else { return nil }
        return read(now: now, window: min(window * 2, Self.longestWindow))
    }

    /// Whether hints are waiting for the window to close.
    public var isHolding: Bool { !pending.isEmpty }

    private mutating func read(now: Duration, window next: Duration) -> Read {
        let kinds = pending
        pending = []
        window = next
        let end = now + next
        windowEndsAt = end
        return Read(kinds: kinds, windowEndsAt: end)
    }
}
