// SPDX-License-Identifier: Apache-2.0

/// Shares the loop between clients: in each loop iteration requests are handled for at most
/// `slice` (at least one request), then the others wait for the next iteration, so that the loop
/// goes back to its other descriptors — and to the clients that just arrived — in between.
///
/// Who goes first (DESIGN §9: root's `status` answers whatever else is asked):
/// - root's and the group's requests before any unprivileged one;
/// - within each, first requests before those of connections that were answered already, the
///   newest first: a request that has just arrived is most likely a person's `agentctl status`,
///   while hundreds of connections opened at once are a script's, so a new `status` does not wait
///   behind 200 connections pipelining `history`; then the others in arrival order;
/// - the one that has waited longest gets a request in every iteration, whatever the slice says,
///   so that every wait is bounded: newcomers cannot starve the others.
///
/// Use it on the loop thread only.
final class TurnQueue {
    /// Work per loop iteration, beyond the first request.
    static let slice = Duration.milliseconds(10)

    private let loop: EventLoop
    private let privileged = Lines()
    private let others = Lines()
    private var sliceIteration: UInt64?
    private var sliceStart = MonotonicInstant(nanoseconds: 0)
    private var grantedInSlice = 0
    private var resumeScheduled = false
    /// The connection `resume` is giving a turn, and whether it goes whatever the slice says.
    private var turn: (connection: ClientConnection, guaranteed: Bool)?

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// Whether `connection` may go on now. `resumed`: it comes from this queue.
    func grant(_ connection: ClientConnection, resumed: Bool) -> Bool {
        if resumed, let turn, turn.connection === connection {
            // The first request of the turn `resume` gave it; the next ones queue like any other.
            self.turn = nil
            if turn.guaranteed || sliceHasRoom() { return take() }
        } else if !mustWait(connection) && sliceHasRoom() {
            return take()
        }
        enqueue(connection)
        return false
    }

    /// Whether a request other than the first of a turn has others before it.
    private func mustWait(_ connection: ClientConnection) -> Bool {
        let fresh = connection.requestCount == 0
        if connection.isPrivileged { return privileged.hasWaiting(before: fresh) }
        return privileged.hasWaiting || others.hasWaiting(before: fresh)
    }

    private func take() -> Bool {
        startSliceIfNew()
        grantedInSlice += 1
        return true
    }

    private func sliceHasRoom() -> Bool {
        startSliceIfNew()
        return grantedInSlice == 0 || MonotonicInstant.now() < sliceStart + Self.slice
    }

    /// A new loop iteration begins a new slice.
    private func startSliceIfNew() {
        guard sliceIteration != loop.iterations else { return }
        sliceIteration = loop.iterations
        sliceStart = MonotonicInstant.now()
        grantedInSlice = 0
    }

    private func enqueue(_ connection: ClientConnection) {
        (connection.isPrivileged ? privileged : others).append(connection)
        scheduleResume()
    }

    /// A timer due now fires in the next iteration, after that iteration's reads.
    private func scheduleResume() {
        guard !resumeScheduled else { return }
        resumeScheduled = true
        loop.schedule(at: loop.now) { [weak self] in
            self?.resume()
        }
    }

    private func resume() {
        resumeScheduled = false
        // The longest waiting is served in every iteration whatever the slice says (last, so that
        // the newest first requests go before it), so newcomers cannot starve it.
        let oldest = privileged.popOldest() ?? others.popOldest()
        for line in [privileged, others] {
            while sliceHasRoom(), let connection = line.popNext() {
                give(connection, guaranteed: false)
            }
        }
        if let oldest { give(oldest, guaranteed: true) }
        if privileged.hasWaiting || others.hasWaiting {
            scheduleResume()
        }
    }

    private func give(_ connection: ClientConnection, guaranteed: Bool) {
        turn = (connection, guaranteed)
        connection.resumeTurn()  // a closed one does nothing
        turn = nil
    }
}

/// One class of clients' waiting connections: those whose first request waits, and those that
/// were answered already.
private final class Lines {
    private let fresh = WaitingLine()
    private let answered = WaitingLine()
    private var arrivals: UInt64 = 0

    var hasWaiting: Bool { fresh.hasWaiting || answered.hasWaiting }

    /// Whether a request has others of its class before it: a first request goes before all.
    func hasWaiting(before isFresh: Bool) -> Bool {
        isFresh ? false : hasWaiting
    }

    func append(_ connection: ClientConnection) {
        arrivals += 1
        (connection.requestCount == 0 ? fresh : answered).append(connection, arrival: arrivals)
    }

    /// The next in turn: the newest first request, else the oldest of the others.
    func popNext() -> ClientConnection? {
        fresh.popLast() ?? answered.popFirst()
    }

    /// The one that has waited longest.
    func popOldest() -> ClientConnection? {
        switch (fresh.firstArrival, answered.firstArrival) {
        case (let a?, let b?): a < b ? fresh.popFirst() : answered.popFirst()
        case (.some, nil): fresh.popFirst()
        default: answered.popFirst()
        }
    }
}

/// Connections waiting for their turn, in arrival order.
private final class WaitingLine {
    private var waiting: [(arrival: UInt64, connection: ClientConnection)] = []
    private var head = 0

    var hasWaiting: Bool { head < waiting.count }
    var firstArrival: UInt64? { hasWaiting ? waiting[head].arrival : nil }

    func append(_ connection: ClientConnection, arrival: UInt64) {
        waiting.append((arrival, connection))
    }

    func popLast() -> ClientConnection? {
        guard hasWaiting else { return nil }
        let connection = waiting.removeLast().connection
        if head == waiting.count {
            waiting.removeAll(keepingCapacity: waiting.capacity <= 1024)
            head = 0
        }
        return connection
    }

    func popFirst() -> ClientConnection? {
        guard hasWaiting else { return nil }
        let connection = waiting[head].connection
        head += 1
        if head == waiting.count {
            waiting.removeAll(keepingCapacity: waiting.capacity <= 1024)
            head = 0
        } else if head >= 256 && head * 2 >= waiting.count {
            waiting.removeSubrange(0..<head)
            head = 0
        }
        return connection
    }
}
