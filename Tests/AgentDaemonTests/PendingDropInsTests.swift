// SPDX-License-Identifier: Apache-2.0
import AgentSystem
import Testing
@testable import AgentDaemon

/// New drop-in scripts wait to settle (an editor's temporary copy must never become a job);
/// everything else is read at once.
struct PendingDropInsTests {
    @Test func onlyADropInScriptNotReadBeforeWaits() {
        #expect(PendingDropIns.waits("jobs.d/backup", known: false))
        #expect(PendingDropIns.waits("jobs.d/sedX1b2C3", known: false))
        #expect(!PendingDropIns.waits("jobs.d/backup", known: true))
        #expect(!PendingDropIns.waits("jobs.d/backup.job", known: false))
        #expect(!PendingDropIns.waits("manifests.d/local.manifest", known: false))
        #expect(!PendingDropIns.waits("agentd.conf", known: false))
        #expect(!PendingDropIns.waits("jobs.d/.backup.swp", known: false))
    }

    @Test func aCopyRenamedAwayBeforeItSettledIsNeverRead() {
        var pending = PendingDropIns()
        pending.add("jobs.d/sedX1b2C3", at: .zero)
        pending.add("jobs.d/witness", at: .zero)
        let forgotten = pending.forget("jobs.d/sedX1b2C3")
        let unknown = pending.forget("jobs.d/never-added")
        #expect(forgotten)
        #expect(!unknown)
        let taken = pending.take(32)
        #expect(taken == ["jobs.d/witness"])
        #expect(pending.isEmpty)
    }

    @Test func settledScriptsAreTakenInSlicesInNameOrder() {
        var pending = PendingDropIns()
        for index in (0..<70).reversed() { pending.add("jobs.d/s\(100 + index)", at: .zero) }
        let first = pending.take(32)
        #expect(first.count == 32)
        #expect(first.first == "jobs.d/s100")
        #expect(first == first.sorted())
        // Forgotten between slices, added between slices: neither lost nor read twice.
        let forgotten = pending.forget("jobs.d/s140")
        #expect(forgotten)
        pending.add("jobs.d/s050", at: .zero)
        var rest: [String] = []
        while !pending.isEmpty { rest += pending.take(32) }
        #expect(Set(first).isDisjoint(with: rest))
        #expect(Set(first + rest).count == 70)
        #expect(!rest.contains("jobs.d/s140"))
        #expect(rest.contains("jobs.d/s050"))
    }

    /// A directory that never stays quiet (a file there written to without end) holds a new
    /// script back at most `longestWait`.
    @Test func aBusyDirectoryHoldsANewScriptBackOnlySoLong() {
        var pending = PendingDropIns()
        let start = MonotonicInstant(nanoseconds: 1_000_000_000)
        #expect(pending.wait(at: start) == PendingDropIns.settlePeriod)
        pending.add("jobs.d/new", at: start)
        #expect(pending.wait(at: start + .seconds(1)) == PendingDropIns.settlePeriod)
        #expect(pending.wait(at: start + .milliseconds(2_900)) == .milliseconds(100))
        #expect(pending.wait(at: start + .seconds(10)) == .zero)
        _ = pending.take(32)
        #expect(pending.since == nil)
    }
}
