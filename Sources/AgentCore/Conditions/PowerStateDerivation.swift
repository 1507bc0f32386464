// SPDX-License-Identifier: Apache-2.0
extension PowerSupply {
    /// Whether this supply powers the machine (scope `System`, `Unknown` or absent). A
    /// `scope=Device` supply (a mouse, a headset, a graphics card's USB-C port) never counts.
    public var powersSystem: Bool { scope != .device }

    /// Whether this is a source of external power the policy counts when it is online: Mains,
    /// USB (also the pre-5.x USB sub-types `USB_PD`, `USB_C`, `USB_DCP`, … reported as
    /// `unknown("USB_…")`), UPS (a UPS reports `online=1` while it runs on line power, `0` on its
    /// own battery) and Wireless (an inductive charger feeding the machine).
    public var isExternalSource: Bool {
        switch type {
        case .mains, .usb, .ups, .wireless: true
        case .battery: false
        case .unknown(let type): type.uppercased().hasPrefix("USB")
        }
    }

    /// Whether this supply feeds the machine right now: an external source with `online` ≥ 1
    /// that powers the system.
    public var feedsSystem: Bool {
        powersSystem && isExternalSource && (online ?? 0) >= 1
    }

    /// Whether this is a system battery that is there: type Battery, not `scope=Device`, and not
    /// `present=0` (an absent `present` attribute means present).
    public var isSystemBattery: Bool {
        type == .battery && powersSystem && present != false
    }

    /// This battery's own level in percent: its `capacity` (what the kernel, upower and desktops
    /// show), else computed from `energy_*`, else `charge_*`.
    public var levelPercent: Int? {
        if let capacity { return min(100, max(0, capacity)) }
        if let now = energyNow, let full = energyFull, full > 0 {
            return PowerState.roundedPercent(now, of: full)
        }
        if let now = chargeNow, let full = chargeFull, full > 0 {
            return PowerState.roundedPercent(now, of: full)
        }
        return capacity
    }
}

extension PowerState {
    /// Derives external power and the combined system battery from every power supply
    /// (DESIGN §6).
    ///
    /// - External power: a supply for which `feedsSystem` holds (Mains/USB/UPS/Wireless, online
    ///   ≥ 1, not `scope=Device`), or no system battery at all (a desktop, a kiosk, a VM).
    /// - Batteries: type Battery, not `scope=Device`, not `present=0`. One reports its own level
    ///   (`capacity`, else from energy or charge). Several combine into one
    ///   level weighted by their size: the sums of `energy_now`/`energy_full` when every battery
    ///   reports energy; else the sums of `charge_now`/`charge_full` when every battery reports
    ///   charge; else the average of each battery's own level (energy, charge or `capacity`),
    ///   skipping batteries that report none. When no battery reports any level, `battery` is nil
    ///   (the battery still exists, so external power is not assumed).
    /// - Discharging: no external power, and no system battery reports `Charging`. Without a
    ///   recognised external source the batteries are what runs the machine, also when the
    ///   driver says `Unknown` or `Not charging`; a battery that says `Charging` means a source
    ///   this rule does not recognise feeds it. With external power the battery is never
    ///   "discharging", even when a weak charger lets it drain (`Discharging` on AC).
    public init(supplies: [PowerSupply]) {
        let batteries = supplies.filter(\.isSystemBattery)
        let external = batteries.isEmpty || supplies.contains(where: \.feedsSystem)
        guard !batteries.isEmpty else {
            self.init(externalPower: external, battery: nil)
            return
        }
        let discharging = !external && !batteries.contains { $0.status == .charging }
        let percent = Self.combinedPercent(batteries)
        self.init(externalPower: external,
                  battery: percent.map { BatteryLevel(percent: $0, discharging: discharging) })
    }

    /// The combined level of `batteries` (all system batteries), or nil when none reports one.
    static func combinedPercent(_ batteries: [PowerSupply]) -> Int? {
        // One battery reports its own level (DESIGN §6): `capacity` may differ by a point from
        // energy_now/energy_full (the firmware's rounding), and the user sees `capacity`.
        if batteries.count == 1 { return batteries[0].levelPercent }
        let energy = batteries.compactMap { battery -> (Int, Int)? in
            guard let now = battery.energyNow, let full = battery.energyFull, full > 0 else { return nil }
            return (max(0, now), full)
        }
        if energy.count == batteries.count {
            return roundedPercent(energy.reduce(0) { $0 + $1.0 }, of: energy.reduce(0) { $0 + $1.1 })
        }
        let charge = batteries.compactMap { battery -> (Int, Int)? in
            guard let now = battery.chargeNow, let full = battery.chargeFull, full > 0 else { return nil }
            return (max(0, now), full)
        }
        if charge.count == batteries.count {
            return roundedPercent(charge.reduce(0) { $0 + $1.0 }, of: charge.reduce(0) { $0 + $1.1 })
        }
        let levels = batteries.compactMap(\.levelPercent)
        guard !levels.isEmpty else { return nil }
        let sum = levels.reduce(0) { $0 + min(100, max(0, $1)) }
        return (sum + levels.count / 2) / levels.count
    }

    /// `now / full` in percent, rounded half up, clamped to 0…100. `full` must be positive.
    static func roundedPercent(_ now: Int, of full: Int) -> Int {
        let (scaled, overflow) = max(0, now).multipliedReportingOverflow(by: 100)
        let percent = overflow ? 100 : (scaled + full / 2) / full
        return min(100, max(0, percent))
    }
}
