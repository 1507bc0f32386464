// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim
import Synchronization
import Testing
@testable import AgentSystem

@Suite("Mailbox")
struct MailboxTests {
    @Test("a burst posted before the loop wakes arrives as one FIFO batch in one wakeup")
    func burstCoalesces() throws {
        let loop = try EventLoop()
        var batches: [[Int]] = []
        let mailbox = try Mailbox<Int>(loop: loop) { batches.append($0) }
        let sender = mailbox.sender
        // The poster finishes before the loop waits at all, so every post lands before the wakeup.
        let poster = TestThread {
            for value in 0..<1_000 { sender.post(value) }
            sender.post(contentsOf: 1_000..<1_010)
        }
        poster.join()
        let before = loop.iterations
        loop.runOnce(timeout: .seconds(10))
        #expect(loop.iterations == before + 1)
        #expect(batches == [Array(0..<1_010)])
        // Nothing left: the eventfd was drained, so the loop sleeps again.
        loop.runOnce(timeout: .milliseconds(20))
        #expect(batches.count == 1)
    }

    @Test("a burst larger than maxBatch comes in slices, one an iteration, in order, none lost")
    func aBurstComesInSlices() throws {
        let loop = try EventLoop()
        var batches: [[Int]] = []
        let mailbox = try Mailbox<Int>(loop: loop, maxBatch: 32) { batches.append($0) }
        let sender = mailbox.sender
        let poster = TestThread { sender.post(contentsOf: 0..<100) }
        poster.join()
        for _ in 0..<4 { loop.runOnce(timeout: .seconds(10)) }
        #expect(batches.map(\.count) == [32, 32, 32, 4])
        #expect(batches.flatMap { $0 } == Array(0..<100))
        // Nothing left: the loop sleeps again.
        loop.runOnce(timeout: .milliseconds(20))
        #expect(batches.count == 4)
    }

    @Test("posts from another thread wake a loop blocked in epoll_wait")
    func crossThreadWakeup() throws {
        let loop = try EventLoop()
        var received: [Int] = []
        let mailbox = try Mailbox<Int>(loop: loop) { batch in
            received.append(contentsOf: batch)
            if received.count == 200 { loop.stop() }
        }
        // Posts one at a time, racing with the loop; batches may be of any size but the order holds.
        let poster = TestThread {
            for value in 0..<200 { mailbox.post(value) }
        }
        #expect(runLoop(loop))
        poster.join()
        #expect(received == Array(0..<200))
        // Far fewer wakeups than messages whenever the poster outruns the loop; never more.
        #expect(loop.iterations <= 201)
    }

    @Test("several posting threads: each thread's messages stay in order")
    func manyPosters() throws {
        let loop = try EventLoop()
        var received: [(thread: Int, value: Int)] = []
        let mailbox = try Mailbox<(thread: Int, value: Int)>(loop: loop) { batch in
            received.append(contentsOf: batch)
            if received.count == 4 * 500 { loop.stop() }
        }
        let sender = mailbox.sender
        let posters = (0..<4).map { thread in
            TestThread {
                for value in 0..<500 { sender.post((thread, value)) }
            }
        }
        #expect(runLoop(loop))
        posters.forEach { $0.join() }
        for thread in 0..<4 {
            #expect(received.filter { $0.thread == thread }.map(\.value) == Array(0..<500))
        }
    }

    @Test("a closed mailbox refuses posts and its handler stops")
    func closeStopsDelivery() throws {
        let loop = try EventLoop()
        var batches = 0
        let mailbox = try Mailbox<String>(loop: loop) { _ in batches += 1 }
        #expect(mailbox.post("one"))
        loop.runOnce(timeout: .seconds(10))
        #expect(batches == 1)
        mailbox.close()
        #expect(mailbox.isClosed)
        #expect(!mailbox.post("two"))
        #expect(!mailbox.sender.post(contentsOf: ["three"]))
        loop.runOnce(timeout: .milliseconds(20))
        #expect(batches == 1)
        #expect(loop.watchCount == 0)
    }
}
