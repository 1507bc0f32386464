// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// The core's SplitMix64: the same values on every run, so a failure names its seed.
typealias SeededRandom = SplitMix64

extension SplitMix64 {
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}
