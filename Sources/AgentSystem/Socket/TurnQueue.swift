// SPDX-License-Identifier: Apache-2.0

/// Shares the loop between unprivileged clients (DESIGN §9: root and group agentd always get
/// through): in each loop iteration their requests are handled for at most `slice` (at least one
/// request), then the others wait in arrival order for the next iteration. Root's and the group's
/// requests never wait here, and since connections are read first in an iteration, theirs are
/// handled before any waiting unprivileged work: a burst of 200 expensive requests costs root one
/// slice, not 200 answers.
///
/// Use it on the loop thread only.
final class TurnQueue {
    /// Unprivileged work per loop iteration, beyond the first request.
    static let slice = Duration.milliseconds(10)

    private let loop: EventLoop
    private var waiting: [ClientConnection] = []
    private var head = 0
    private var sliceIteration: UInt64?
    private var sliceStart = MonotonicInstant(nanoseconds: 0)
    private var grantedInSlice = 0
    private var resumeScheduled = false

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// Whether `connection` may go on now. `resumed`: it comes from this queue (it does not
    /// queue again behind the others).
    func grant(_ connection: ClientConnection, resumed: Bool) -> Bool {
        if connection.isPrivileged { return true }
        if !resumed && head < waiting.count {
            enqueue(connection)  // others were first
            return false
        }
        guard sliceHasRoom() else {
            enqueue(connection)
            return false
        }
        grantedInSlice += 1
        return true
    }

    private func sliceHasRoom() -> Bool {
        if sliceIteration != loop.iterations {
            sliceIteration = loop.iterations
            sliceStart = MonotonicInstant.now()
            grantedInSlice = 0
        }
        return grantedInSlice == 0 || MonotonicInstant.now() < sliceStart + Self.slice
    }

    private func enqueue(_ connection: ClientConnection) {
        waiting.append(connection)
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
        while head < waiting.count, sliceHasRoom() {
            let connection = waiting[head]
            head += 1
            connection.resumeTurn()  // a closed one does nothing
        }
        if head == waiting.count {
            waiting.removeAll(keepingCapacity: waiting.capacity <= 1024)
            head = 0
        } else {
            if head >= 256 && head * 2 >= waiting.count {
                waiting.removeSubrange(0..<head)
                head = 0
            }
            scheduleResume()
        }
    }
}
