// SPDX-License-Identifier: Apache-2.0
/// Why a run was started; handed to the plugin as `AGENTD_REASON` and kept in history.
public enum RunReason: String, Sendable, Codable, CaseIterable {
    case scheduled
    /// A run-time request (`agentctl request`, BGTaskScheduler's `submit`) was served.
    case requested
    case triggered
    case submitted
    case simulated
    /// `agentctl run`: an administrator's "run it now", policy bypassed.
    case manual
    case catchUp = "catch-up"
    case retry
    case chained
    /// `AfterBoot=`: due that long after the machine booted, once per boot.
    case boot
}
