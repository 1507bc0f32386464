// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// Issue 26 item 6: repeated `Exec=` lines run in order within one run; a failing command ends
/// it unless its line starts with `-`; one `MaxRuntime=` and one result for the whole run.
@Suite struct CommandSequenceTests {
    private struct Run {
        var lifecycle: RunLifecycle
        var now = Duration.seconds(100)
        init(_ mayFail: [Bool], success: SuccessExitStatus = SuccessExitStatus(), maxRuntime: Duration? = nil) {
            lifecycle = RunLifecycle(settings: .init(maxRuntime: maxRuntime, progressTimeout: nil, gracePeriod: .seconds(5),
                                                     successExitStatus: success, commands: CommandSequence(mayFail: mayFail)))
            _ = lifecycle.handle(.started(wallClock: SchedulerTime(seconds: 0)), now: now)
        }
        /// The running command's main process exits and its processes are gone.
        mutating func ends(_ termination: ProcessTermination, goneFirst: Bool = false) -> [RunAction] {
            now += .seconds(1)
            if goneFirst {
                return lifecycle.handle(.allProcessesGone, now: now) + lifecycle.handle(.mainExited(termination), now: now)
            }
            return lifecycle.handle(.mainExited(termination), now: now) + lifecycle.handle(.allProcessesGone, now: now)
        }
    }

    @Test func theNextCommandIsSpawnedOnlyOnceTheLastOnesProcessesAreGone() {
        var run = Run([false, false, false])
        #expect(run.lifecycle.handle(.mainExited(.exited(0)), now: run.now) == [.killAll])
        #expect(run.lifecycle.awaitsNextCommand)
        #expect(run.lifecycle.handle(.allProcessesGone, now: run.now) == [.spawnCommand(1)])
        #expect(run.lifecycle.command == 1)
        #expect(run.ends(.exited(0), goneFirst: true) == [.spawnCommand(2)])
        #expect(run.ends(.exited(0)) == [.killAll, .record(.success)])
    }

    @Test func aFailingCommandEndsTheRunWithItsResultUnlessItsLineHasADash() {
        var plain = Run([false, false])
        #expect(plain.ends(.exited(3)) == [.killAll, .record(.failure(exitStatus: 3))])
        var dashed = Run([true, false])
        #expect(dashed.ends(.exited(3)) == [.killAll, .spawnCommand(1)])
        #expect(dashed.ends(.signaled(9)) == [.killAll, .record(.crashed(signal: 9))])
        var lastDashed = Run([false, true])
        #expect(lastDashed.ends(.exited(0)) == [.killAll, .spawnCommand(1)])
        #expect(lastDashed.ends(.exited(1)) == [.killAll, .record(.success)], "a - command's failure is no failure")
    }

    @Test func successExitStatusCountsAsSuccessBetweenCommands() {
        var run = Run([false, false], success: SuccessExitStatus(statuses: [2]))
        #expect(run.ends(.exited(2)) == [.killAll, .spawnCommand(1)])
        #expect(run.ends(.exited(2)) == [.killAll, .record(.success)])
    }

    @Test func oneMaxRuntimeCoversEveryCommand() {
        var run = Run([false, false], maxRuntime: .seconds(10))
        let deadline = run.lifecycle.nextDeadline
        #expect(deadline == .seconds(110))
        _ = run.ends(.exited(0))
        #expect(run.lifecycle.nextDeadline == deadline, "the second command's deadline is the run's")
        #expect(run.lifecycle.handle(.deadlineReached, now: .seconds(110)) == [.signal(15), .signal(18)])
    }

    @Test func aStopBetweenTwoCommandsSpawnsNoMore() {
        var run = Run([false, false])
        _ = run.lifecycle.handle(.mainExited(.exited(0)), now: run.now)
        #expect(run.lifecycle.handle(.cancel, now: run.now) == [])
        #expect(run.lifecycle.handle(.allProcessesGone, now: run.now) == [.record(.cancelled)])
    }

    @Test func aNextCommandThatCannotBeSpawnedEndsTheRunSpawnFailed() {
        var run = Run([false, false])
        _ = run.ends(.exited(0))
        #expect(run.lifecycle.handle(.spawnFailed("EnvironmentFile=/x: No such file or directory"), now: run.now)
            == [.record(.spawnFailed("EnvironmentFile=/x: No such file or directory"))])
    }
}
