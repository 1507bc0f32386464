// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// `RandomizedDelay=`: one offset per job and machine, spread across jobs and machines.
struct StableDelayTests {
    let span: Duration = .seconds(1800)

    @Test func theSameMachineAndJobAlwaysGetTheSameOffset() {
        let first = StableDelay.offset(span: span, machineID: "3d1219c7c4c5404aaa1f6d2a48adfda4", identifier: id("local.backup"))
        for _ in 0..<3 {
            #expect(StableDelay.offset(span: span, machineID: "3d1219c7c4c5404aaa1f6d2a48adfda4",
                                       identifier: id("local.backup")) == first)
        }
        #expect(first >= .zero && first < span)
    }

    @Test func differentJobsAndMachinesSpreadOverTheSpan() {
        let offsets = (0..<200).map {
            StableDelay.offset(span: span, machineID: "3d1219c7c4c5404aaa1f6d2a48adfda4", identifier: id("local.job\($0)"))
        }
        #expect(offsets.allSatisfy { $0 >= .zero && $0 < span })
        #expect(Set(offsets).count > 195)
        // Each sixth of the span gets a share of 200 jobs (a uniform spread gives ~33 each).
        var buckets = [Int](repeating: 0, count: 6)
        for offset in offsets { buckets[Int(offset.schedulerSeconds / 300)] += 1 }
        #expect(buckets.allSatisfy { $0 >= 15 }, "\(buckets)")
        let machines = (0..<50).map {
            StableDelay.offset(span: span, machineID: "machine-\($0)", identifier: id("local.backup"))
        }
        #expect(Set(machines).count > 45)
    }

    @Test func noSpanNoOffset() {
        #expect(StableDelay.offset(span: .zero, machineID: "x", identifier: id("local.a")) == .zero)
    }
}
