// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

@Test(arguments: [
    // Nothing done by the agent: the process's own end decides.
    (ProcessTermination.exited(0), ExpiryReason?.none, false, StopReason.success),
    (.exited(1), nil, false, .failure(exitStatus: 1)),
    (.exited(3), nil, false, .failure(exitStatus: 3)),
    (.exited(255), nil, false, .failure(exitStatus: 255)),
    (.signaled(11), nil, false, .crashed(signal: 11)),
    (.signaled(9), nil, false, .crashed(signal: 9)),
    (.signaled(15), nil, false, .crashed(signal: 15)),
    // Expired: however it ends, including a clean exit 0 inside the grace period.
    (.exited(0), .maxRuntime, false, .expired(.maxRuntime)),
    (.exited(1), .noProgress, false, .expired(.noProgress)),
    (.signaled(15), .power, false, .expired(.power)),
    (.signaled(9), .thermal, false, .expired(.thermal)),
    (.signaled(11), .simulated, false, .expired(.simulated)),
    // Cancelled: likewise.
    (.exited(0), nil, true, .cancelled),
    (.exited(2), nil, true, .cancelled),
    (.signaled(9), nil, true, .cancelled),
    // Both (not expected from the core): expiry wins.
    (.exited(0), .battery, true, .expired(.battery)),
])
func resolveFollowsTheCompletionContract(
    _ termination: ProcessTermination, _ expiredFor: ExpiryReason?, _ cancelled: Bool,
    _ expected: StopReason
) {
    #expect(StopReason.resolve(termination: termination, expiredFor: expiredFor, cancelled: cancelled)
        == expected)
}

@Test func resolveCoversEveryExpiryReason() {
    for reason in ExpiryReason.allCases {
        for termination in [ProcessTermination.exited(0), .exited(1), .signaled(9)] {
            #expect(StopReason.resolve(termination: termination, expiredFor: reason, cancelled: false)
                == .expired(reason))
        }
    }
}
