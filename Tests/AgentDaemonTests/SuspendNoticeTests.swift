// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem
import Testing
@testable import AgentDaemon

/// A resume may reach the agent first as any event (logind's PrepareForSleep(false), a battery's
/// uevent): the suspend is noticed before that event, so what fell due while the machine slept
/// catches up spread out instead of starting at once (helper-43).
struct SuspendNoticeTests {
    private func follower(_ loop: VirtualEventLoop) -> (LocalTimeFollower, Box) {
        let follower = LocalTimeFollower(loop: loop, kernelLoop: nil, log: Logger())
        let sent = Box()
        follower.send = { event in
            if case .resumedAfterDowntime = event { sent.resumes += 1 }
        }
        return (follower, sent)
    }

    final class Box { var resumes = 0 }

    @Test func anyEventAfterASuspendIsPrecededByTheResume() throws {
        let loop = VirtualEventLoop()
        let (time, sent) = follower(loop)
        let id = try #require(Identifier(rawValue: "com.example.feed"))
        time.beforeEvent(.trigger(id))
        #expect(sent.resumes == 0)
        loop.suspend(for: .seconds(3_600))
        time.beforeEvent(.trigger(id))
        #expect(sent.resumes == 1)
        // Said once: the next event is no new resume.
        time.beforeEvent(.tick)
        #expect(sent.resumes == 1)
    }

    @Test func aSuspendShorterThanTheShortestIsNoDowntime() throws {
        let loop = VirtualEventLoop()
        let (time, sent) = follower(loop)
        loop.suspend(for: LocalTimeFollower.shortestSuspend - .seconds(1))
        time.beforeEvent(.tick)
        #expect(sent.resumes == 0)
    }
}
