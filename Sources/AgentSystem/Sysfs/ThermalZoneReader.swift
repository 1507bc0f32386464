// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// Reads every thermal zone under `SYSFS/class/thermal/thermal_zone*`: its `type`, `temp` and
/// each `trip_point_N_type` / `trip_point_N_temp` pair (N from 0 until the first missing pair).
/// Cooling devices (`cooling_deviceN`) in the same directory are not zones and are skipped.
public struct ThermalZoneReader: Sendable {
    public let roots: KernelRoots

    /// More trip points than any real zone has (ACPI allows a dozen or so); the walk stops here
    /// even if a fake tree numbers them without end.
    static let maxTrips = 64

    public init(roots: KernelRoots = .system) {
        self.roots = roots
    }

    /// Every zone, sorted by zone number.
    public func readAll() -> [ThermalZone] {
        SmallFile.entries(roots.thermalDirectory)
            .compactMap { name -> (Int, String)? in
                guard name.hasPrefix("thermal_zone"), let number = Int(name.dropFirst(12)), number >= 0
                else { return nil }
                return (number, name)
            }
            .sorted { $0.0 < $1.0 }
            .map { read(name: $0.1) }
    }

    /// The zone `name` (`thermal_zone3`). A zone whose `temp` cannot be read has a nil
    /// temperature; a trip whose temperature cannot be read is left out.
    public func read(name: String) -> ThermalZone {
        let directory = KernelRoots.join(roots.thermalDirectory, name)
        var trips: [ThermalTrip] = []
        for index in 0..<Self.maxTrips {
            let prefix = directory + "/trip_point_\(index)_"
            guard let type = SmallFile.value(prefix + "type") else { break }
            guard let temperature = SmallFile.integer(prefix + "temp") else { continue }
            trips.append(ThermalTrip(kind: ThermalTrip.Kind(attribute: type), temperatureMilli: temperature))
        }
        return ThermalZone(name: name, type: SmallFile.value(directory + "/type") ?? "",
                           temperatureMilli: SmallFile.integer(directory + "/temp"), trips: trips)
    }

    /// The thermal state of the zones read now, with `settings`' margins.
    public func assessment(settings: AgentSettings) -> ThermalAssessment {
        ThermalAssessment(zones: readAll(), settings: settings)
    }
}
