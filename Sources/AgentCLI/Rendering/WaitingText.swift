// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol

/// A wait as the agent words it (`interval (earliest 14:05)`), its time said in agentctl's own
/// zone: the agent writes the time in its zone, while NEXT and the other columns are in
/// agentctl's. The instant the wait names comes with it (`until`), so the time is written again
/// from that, never guessed from the text; a budget's refill (the agent's local midnight, with
/// its counts) is left as the agent wrote it.
enum WaitingText {
    static func local(_ text: String, code: Reported<WaitCode>?, until: Double?, clock: DisplayClock) -> String {
        guard let until, code != .known(.budget), text.hasSuffix(")"),
              let open = text.lastIndex(of: "("), open > text.startIndex,
              text[text.index(before: open)] == " ",
              let label = WaitTimeLabel.all.first(where: { text[open...].hasPrefix($0) })
        else { return text }
        // In the zone NEXT and the other columns are shown in.
        let time = LocalClockText.text(until, now: Double(clock.nowSeconds)) { clock.local(Int64($0.rounded(.down))) }
        return String(text[..<open]) + label + time + ")"
    }
}
