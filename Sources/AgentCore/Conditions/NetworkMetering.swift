// SPDX-License-Identifier: Apache-2.0
/// Whether the network the machine uses is metered (DESIGN §6), as NetworkManager reports it.
///
/// NetworkManager's global `Metered` property (`NMMetered`, on `/org/freedesktop/NetworkManager`,
/// reflecting the primary connection) maps as its documentation advises:
///
/// | NMMetered | value | counts as |
/// | --- | --- | --- |
/// | `NM_METERED_UNKNOWN` | 0 | `unknown`: unmetered |
/// | `NM_METERED_YES` | 1 | `yes`: metered |
/// | `NM_METERED_NO` | 2 | `no`: unmetered |
/// | `NM_METERED_GUESS_YES` | 3 | `yes`: metered |
/// | `NM_METERED_GUESS_NO` | 4 | `no`: unmetered |
///
/// Any other value is `unknown`. Without NetworkManager the shell reports `no`: every network
/// counts as unmetered, as DESIGN §6 says, with the reason shown as the source in `status`.
/// `checking` is the moment between the agent's start and NetworkManager's first answer (at
/// most the bus call timeout): `RequiresNetwork=unmetered` work waits for the answer rather
/// than start on a network that may turn out metered and be expired a moment later.
public enum NetworkMetering: String, Sendable, Hashable, Codable, CaseIterable {
    case yes
    case no
    case unknown
    case checking

    /// NetworkManager's yes or guess-yes.
    public var isMetered: Bool { self == .yes }

    /// Whether `RequiresNetwork=unmetered` work waits: on a metered network, or until
    /// NetworkManager has answered.
    public var holdsUnmeteredWork: Bool { self == .yes || self == .checking }

    /// NetworkManager's `Metered` value, mapped as the table above says.
    public init(networkManagerValue value: UInt32) {
        switch value {
        case 1, 3: self = .yes
        case 2, 4: self = .no
        default: self = .unknown
        }
    }

    /// NetworkManager's own name for a `Metered` value (`guess-yes`), for `status`.
    public static func networkManagerName(_ value: UInt32) -> String {
        switch value {
        case 0: "unknown"
        case 1: "yes"
        case 2: "no"
        case 3: "guess-yes"
        case 4: "guess-no"
        default: "value \(value)"
        }
    }
}
