// SPDX-License-Identifier: Apache-2.0
/// The machine's thermal state (DESIGN §6), worst last so `max` picks the worst zone.
///
/// critical = a zone at its `hot` trip or within `CriticalMargin` °C of `critical`;
/// serious = a zone at or above a `passive` trip; fair = a zone within `FairMargin` °C of its
/// lowest passive/hot trip; nominal otherwise or without zones.
public enum ThermalState: Int, Sendable, Hashable, Comparable, Codable, CaseIterable,
    CustomStringConvertible
{
    case nominal, fair, serious, critical

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    public var description: String {
        switch self {
        case .nominal: "nominal"
        case .fair: "fair"
        case .serious: "serious"
        case .critical: "critical"
        }
    }
}
