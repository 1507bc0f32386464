// SPDX-License-Identifier: Apache-2.0
import AgentSystem

/// What `status` says about the agent itself: how it was started and when.
struct AgentFacts {
    var options: DaemonOptions
    /// Unix seconds.
    var startedAtWall: Int64
    var startedAt: MonotonicInstant
}
