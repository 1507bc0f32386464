// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Testing
@testable import AgentDaemon

@Test func theLastNotificationSaysHowTheRunEnded() {
    #expect(NotificationText.result(stopReason: .success) == "Done")
    #expect(NotificationText.result(stopReason: .failure(exitStatus: 3)) == "Failed (exit 3)")
    #expect(NotificationText.result(stopReason: .expired(.noProgress)) == "Stopped: expired (no-progress)")
    #expect(NotificationText.result(stopReason: .cancelled) == "Cancelled")
    #expect(NotificationText.result(stopReason: .crashed(signal: 9)) == "Crashed (signal 9)")
    #expect(NotificationText.result(stopReason: .spawnFailed("unsafe: x")) == "Could not start (unsafe: x)")
    #expect(NotificationText.result(stopReason: .skipped("ConditionPathExists=/x")) == "Ended: skipped(ConditionPathExists=/x)")
}
