// SPDX-License-Identifier: Apache-2.0
/// The machine's thermal state computed from its zones (DESIGN §6), and the zone behind it.
///
/// Per zone, on trips that count (`ThermalTrip.counts`: passive/hot/critical above 0 °C):
/// - critical: at or above a `hot` trip, or within `criticalMargin` °C of a `critical` trip;
/// - serious: at or above a `passive` trip;
/// - fair: within `fairMargin` °C of the zone's lowest passive or hot trip;
/// - nominal otherwise, and for a zone without such trips or without a readable temperature.
/// The machine's state is the worst zone's. "Within m °C of T" means temperature ≥ T − m.
public struct ThermalAssessment: Sendable, Hashable, CustomStringConvertible {
    /// The zone that decides the state, for `agentctl status`.
    public struct Zone: Sendable, Hashable {
        /// The zone's `type` (`x86_pkg_temp`), or its directory name when the type is empty.
        public var label: String
        /// Directory name (`thermal_zone3`).
        public var name: String
        /// Temperature in millidegrees Celsius.
        public var temperatureMilli: Int
        /// The state this zone alone would give.
        public var state: ThermalState
        /// The next counting trip above the temperature; when the zone is above all of them, the
        /// highest one (then `marginC` ≤ 0).
        public var referenceTrip: ThermalTrip.Kind
        /// Whole degrees from the temperature up to `referenceTrip` (negative: above it).
        public var marginC: Int

        /// Temperature in whole degrees Celsius, rounded.
        public var temperatureC: Int { ThermalAssessment.roundedDegrees(temperatureMilli) }

        /// `x86_pkg_temp 82 °C, 8 °C below passive` (or `3 °C above critical`, `at hot`).
        public var summary: String {
            let position: String
            if marginC > 0 {
                position = "\(marginC) °C below \(referenceTrip)"
            } else if marginC == 0 {
                position = "at \(referenceTrip)"
            } else {
                position = "\(-marginC) °C above \(referenceTrip)"
            }
            return "\(label) \(temperatureC) °C, \(position)"
        }
    }

    public var state: ThermalState
    /// The worst zone (ties: the one closest to its next trip); nil without a zone that has a
    /// readable temperature and a counting trip.
    public var decidingZone: Zone?

    public init(state: ThermalState, decidingZone: Zone?) {
        self.state = state
        self.decidingZone = decidingZone
    }

    /// Assesses `zones` with the margins of `agentd.conf` `[Thermal]` (°C).
    public init(zones: [ThermalZone], fairMargin: Int, criticalMargin: Int) {
        var worst: Zone?
        for zone in zones {
            guard let assessed = Self.assess(zone, fairMargin: fairMargin, criticalMargin: criticalMargin)
            else { continue }
            if let current = worst {
                if assessed.state > current.state
                    || (assessed.state == current.state && assessed.marginC < current.marginC)
                {
                    worst = assessed
                }
            } else {
                worst = assessed
            }
        }
        self.init(state: worst?.state ?? .nominal, decidingZone: worst)
    }

    /// Assesses `zones` with `settings.thermalFairMargin` and `thermalCriticalMargin`.
    public init(zones: [ThermalZone], settings: AgentSettings) {
        self.init(zones: zones, fairMargin: settings.thermalFairMargin,
                  criticalMargin: settings.thermalCriticalMargin)
    }

    /// `fair (x86_pkg_temp 82 °C, 8 °C below passive)`, or just the state without a zone.
    public var description: String {
        guard let zone = decidingZone else { return state.description }
        return "\(state) (\(zone.summary))"
    }

    /// One zone's state and reference trip; nil when it has no temperature or no counting trip.
    static func assess(_ zone: ThermalZone, fairMargin: Int, criticalMargin: Int) -> Zone? {
        guard let temperature = zone.temperatureMilli else { return nil }
        let trips = zone.trips.filter(\.counts)
        guard !trips.isEmpty else { return nil }
        let fairSpan = max(0, fairMargin) * 1000
        let criticalSpan = max(0, criticalMargin) * 1000

        var state = ThermalState.nominal
        if let lowest = trips.filter({ $0.kind == .passive || $0.kind == .hot })
            .map(\.temperatureMilli).min(), temperature >= lowest - fairSpan
        {
            state = .fair
        }
        if trips.contains(where: { $0.kind == .passive && temperature >= $0.temperatureMilli }) {
            state = .serious
        }
        if trips.contains(where: { $0.kind == .hot && temperature >= $0.temperatureMilli })
            || trips.contains(where: { $0.kind == .critical && temperature >= $0.temperatureMilli - criticalSpan })
        {
            state = .critical
        }

        let ordered = trips.sorted { $0.temperatureMilli < $1.temperatureMilli }
        // Non-empty, so one of the two exists.
        guard let reference = ordered.first(where: { $0.temperatureMilli > temperature }) ?? ordered.last
        else { return nil }
        let label = zone.type.isEmpty ? zone.name : zone.type
        // Below a trip by any amount reads "1 °C below", never "at": "at" means reached.
        let difference = reference.temperatureMilli - temperature
        let margin = difference > 0 ? max(1, roundedDegrees(difference)) : roundedDegrees(difference)
        return Zone(label: label, name: zone.name, temperatureMilli: temperature, state: state,
                    referenceTrip: reference.kind, marginC: margin)
    }

    /// Millidegrees to whole degrees, rounded half away from zero.
    static func roundedDegrees(_ milli: Int) -> Int {
        milli >= 0 ? (milli + 500) / 1000 : -((-milli + 500) / 1000)
    }
}
