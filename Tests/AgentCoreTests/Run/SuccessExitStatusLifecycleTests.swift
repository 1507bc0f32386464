// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// DESIGN §5 "Completion": exit 0 or a `SuccessExitStatus=` is success; a listed signal too.
@Suite struct SuccessExitStatusLifecycleTests {
    private func result(_ termination: ProcessTermination, success: SuccessExitStatus) -> [RunAction] {
        var lifecycle = RunLifecycle(settings: .init(maxRuntime: nil, progressTimeout: nil, gracePeriod: .seconds(5),
                                                     successExitStatus: success))
        _ = lifecycle.handle(.started(wallClock: SchedulerTime(seconds: 0)), now: .seconds(1))
        return lifecycle.handle(.mainExited(termination), now: .seconds(2))
            + lifecycle.handle(.allProcessesGone, now: .seconds(2))
    }

    @Test func aListedExitStatusOrSignalIsSuccessOthersAreNot() {
        let listed = SuccessExitStatus(statuses: [2], signals: [1])
        #expect(result(.exited(2), success: listed).last == .record(.success))
        #expect(result(.signaled(1), success: listed).last == .record(.success))
        #expect(result(.exited(3), success: listed).last == .record(.failure(exitStatus: 3)))
        #expect(result(.signaled(9), success: listed).last == .record(.crashed(signal: 9)))
        #expect(result(.exited(2), success: SuccessExitStatus()).last == .record(.failure(exitStatus: 2)))
    }

    @Test func anExpiredRunIsExpiredEvenWithAListedStatus() {
        var lifecycle = RunLifecycle(settings: .init(maxRuntime: nil, progressTimeout: nil, gracePeriod: .seconds(5),
                                                     successExitStatus: SuccessExitStatus(statuses: [2])))
        _ = lifecycle.handle(.started(wallClock: SchedulerTime(seconds: 0)), now: .seconds(1))
        _ = lifecycle.handle(.expire(.power), now: .seconds(2))
        _ = lifecycle.handle(.mainExited(.exited(2)), now: .seconds(3))
        #expect(lifecycle.handle(.allProcessesGone, now: .seconds(3)) == [.record(.expired(.power))])
    }
}
