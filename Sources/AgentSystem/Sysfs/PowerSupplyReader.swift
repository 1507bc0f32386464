// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// Reads every power supply under `SYSFS/class/power_supply/`.
///
/// Each entry (a symbolic link into `/sys/devices` on a real system, a plain directory in a fake
/// tree) is one supply. Missing or unreadable attributes are nil; nothing here fails. A uevent is
/// only a hint: call `readAll()` again and derive `PowerState(supplies:)` from the result.
public struct PowerSupplyReader: Sendable {
    public let roots: KernelRoots

    public init(roots: KernelRoots = .system) {
        self.roots = roots
    }

    /// Every supply, sorted by name. Entries without a readable `type` are skipped (not a supply).
    public func readAll() -> [PowerSupply] {
        SmallFile.entries(roots.powerSupplyDirectory).compactMap(read(name:))
    }

    /// The supply `name`, or nil when it has no readable `type` attribute.
    public func read(name: String) -> PowerSupply? {
        let directory = KernelRoots.join(roots.powerSupplyDirectory, name)
        func attribute(_ key: String) -> String? { SmallFile.value(directory + "/" + key) }
        func integer(_ key: String) -> Int? { SmallFile.integer(directory + "/" + key) }

        guard let typeAttribute = attribute("type") else { return nil }
        return PowerSupply(
            name: name,
            type: PowerSupply.SupplyType(attribute: typeAttribute),
            scope: PowerSupply.Scope(attribute: attribute("scope")),
            online: integer("online"),
            present: PowerSupply.flag(attribute("present")),
            capacity: integer("capacity"),
            status: PowerSupply.Status(attribute: attribute("status")),
            energyNow: integer("energy_now"),
            energyFull: integer("energy_full"),
            chargeNow: integer("charge_now"),
            chargeFull: integer("charge_full"))
    }

    /// `PowerState(supplies: readAll())`.
    public func powerState() -> PowerState {
        PowerState(supplies: readAll())
    }
}
