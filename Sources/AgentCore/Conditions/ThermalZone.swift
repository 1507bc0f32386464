// SPDX-License-Identifier: Apache-2.0
/// One thermal zone as the kernel describes it in `/sys/class/thermal/thermal_zoneN/`.
public struct ThermalZone: Sendable, Hashable {
    /// The directory name, e.g. `thermal_zone3`.
    public var name: String
    /// The `type` attribute, e.g. `x86_pkg_temp`, `acpitz`, `iwlwifi_1`.
    public var type: String
    /// The `temp` attribute in millidegrees Celsius; nil when unreadable (some zones return an
    /// error while their device sleeps), and such a zone is ignored.
    public var temperatureMilli: Int?
    /// The zone's trip points in index order (`trip_point_N_type` / `trip_point_N_temp`).
    public var trips: [ThermalTrip]

    public init(name: String, type: String, temperatureMilli: Int?, trips: [ThermalTrip] = []) {
        self.name = name
        self.type = type
        self.temperatureMilli = temperatureMilli
        self.trips = trips
    }
}

/// One trip point of a thermal zone.
public struct ThermalTrip: Sendable, Hashable {
    /// `trip_point_N_type`.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// The kernel starts throttling (passive cooling).
        case passive
        /// The platform is about to overheat; firmware may act.
        case hot
        /// The kernel shuts the machine down.
        case critical
        /// A fan step. Never counts for the thermal state.
        case active
        /// Anything else. Never counts.
        case unknown

        /// Interprets `passive`, `hot`, `critical`, `active` (whitespace ignored).
        public init(attribute: String) {
            switch PowerSupply.trimmed(attribute).lowercased() {
            case "passive": self = .passive
            case "hot": self = .hot
            case "critical": self = .critical
            case "active": self = .active
            default: self = .unknown
            }
        }

        public var description: String {
            switch self {
            case .passive: "passive"
            case .hot: "hot"
            case .critical: "critical"
            case .active: "active"
            case .unknown: "unknown"
            }
        }
    }

    public var kind: Kind
    /// `trip_point_N_temp` in millidegrees Celsius.
    public var temperatureMilli: Int

    public init(kind: Kind, temperatureMilli: Int) {
        self.kind = kind
        self.temperatureMilli = temperatureMilli
    }

    /// Whether the thermal state looks at this trip: passive, hot or critical with a
    /// temperature above 0 °C (0 and below are firmware placeholders).
    public var counts: Bool {
        switch kind {
        case .passive, .hot, .critical: temperatureMilli > 0
        case .active, .unknown: false
        }
    }
}
