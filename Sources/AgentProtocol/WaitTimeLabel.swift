// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// The word before a wait's time in its text (`interval (earliest 14:05)`, `window (opens 22:00)`,
/// `schedule (next Wed 03:10)`): the agent writes them, and agentctl finds them to write the time
/// again in its own zone.
public enum WaitTimeLabel {
    /// `(opens ` for a window, `(next ` for a schedule slot, `(earliest ` for the rest; a budget's
    /// refill is worded apart, with its counts.
    public static func label(for reason: WaitReason) -> String {
        switch reason {
        case .window: "(opens "
        case .schedule: "(next "
        default: "(earliest "
        }
    }

    /// Every label a wait's time can follow.
    public static let all = ["(earliest ", "(opens ", "(next "]
}
