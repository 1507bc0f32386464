// SPDX-License-Identifier: Apache-2.0
@testable import AgentSystem
import Glibc
import Testing

/// sd_watchdog_enabled(3)'s rule, which ServiceNotifier applies without libsystemd (issue 17).
struct ServiceNotifierTests {
    @Test func theWatchdogIsKeptAtHalfTheIntervalSystemdAskedFor() {
        #expect(ServiceNotifier.watchdogInterval(usec: "200000", pid: nil, ownPID: 42) == .microseconds(100_000))
        #expect(ServiceNotifier.watchdogInterval(usec: "200000", pid: "42", ownPID: 42) == .microseconds(100_000))
    }

    @Test func aWatchdogMeantForAnotherProcessOrNoneIsIgnored() {
        #expect(ServiceNotifier.watchdogInterval(usec: nil, pid: nil, ownPID: 42) == nil)
        #expect(ServiceNotifier.watchdogInterval(usec: "200000", pid: "43", ownPID: 42) == nil)
        #expect(ServiceNotifier.watchdogInterval(usec: "0", pid: nil, ownPID: 42) == nil)
        #expect(ServiceNotifier.watchdogInterval(usec: "-5", pid: nil, ownPID: 42) == nil)
        #expect(ServiceNotifier.watchdogInterval(usec: "2s", pid: nil, ownPID: 42) == nil)
        #expect(ServiceNotifier.watchdogInterval(usec: "200000", pid: "x", ownPID: 42) == nil)
    }
}
