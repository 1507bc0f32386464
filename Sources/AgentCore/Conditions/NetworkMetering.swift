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
public enum NetworkMetering: String, Sendable, Hashable, Codable, CaseIterable {
    case yes
    case no
    case unknown

    /// Only `yes` (NetworkManager's yes or guess-yes) keeps `RequiresNetwork=unmetered` work back.
    public var isMetered: Bool { self == .yes }

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
