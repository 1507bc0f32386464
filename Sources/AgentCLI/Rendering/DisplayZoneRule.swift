// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Glibc

/// The display clock's zone as the core's local-time rules: `agentctl calendar` computes slots
/// in the zone it prints them in.
struct DisplayZoneRule: UTCOffsetRule {
    var zone: DisplayClock.Zone

    func utcOffset(at unixSeconds: Int64) -> Int {
        switch zone {
        case .fixedOffset(let seconds):
            return seconds
        case .system:
            var time = time_t(unixSeconds)
            var parts = tm()
            guard localtime_r(&time, &parts) != nil else { return 0 }
            return Int(parts.tm_gmtoff)
        }
    }
}
