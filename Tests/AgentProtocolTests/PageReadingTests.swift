// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import Testing

/// agentctl and the BackgroundTasks library read a long answer page by page with one loop.
struct PageReadingTests {
    @Test func pagesAreReadUntilTheAnswerSaysNoneFollows() {
        var asked: [Int] = []
        let all = PageRequest.readAll { page -> (entries: [Int], nextOffset: Int?)? in
            asked.append(page.offset)
            let entries = Array(page.offset..<min(page.offset + 3, 7))
            return (entries, page.offset + 3 < 7 ? page.offset + 3 : nil)
        }
        #expect(all == Array(0..<7))
        #expect(asked == [0, 3, 6])
    }

    /// An agent that answers a next page that does not move on would be asked for ever.
    @Test func aNextOffsetThatDoesNotMoveOnEndsTheReading() {
        var calls = 0
        let all = PageRequest.readAll { page -> (entries: [String], nextOffset: Int?)? in
            calls += 1
            return (["a"], page.offset)
        }
        #expect(all == ["a"] && calls == 1)
    }

    /// The library keeps what it read before the agent stopped answering.
    @Test func aPageThatCannotBeReadEndsWithWhatWasRead() {
        let all = PageRequest.readAll { page -> (entries: [Int], nextOffset: Int?)? in
            page.offset == 0 ? ([1, 2], 2) : nil
        }
        #expect(all == [1, 2])
    }

    struct Refused: Error {}

    @Test func aFailureOfAPageIsThrown() {
        #expect(throws: Refused.self) {
            _ = try PageRequest.readAll { page throws(Refused) -> (entries: [Int], nextOffset: Int?)? in
                if page.offset > 0 { throw Refused() }
                return ([1], 1)
            }
        }
    }
}
