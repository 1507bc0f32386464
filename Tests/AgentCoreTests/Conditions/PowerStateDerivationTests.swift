// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

private func mains(_ online: Int? = 1, name: String = "AC") -> PowerSupply {
    PowerSupply(name: name, type: .mains, online: online)
}

private func battery(_ name: String = "BAT0", capacity: Int? = nil, status: PowerSupply.Status = .discharging,
                     energy: (Int, Int)? = nil, charge: (Int, Int)? = nil,
                     scope: PowerSupply.Scope = .system, present: Bool? = true) -> PowerSupply
{
    PowerSupply(name: name, type: .battery, scope: scope, present: present, capacity: capacity,
                status: status, energyNow: energy?.0, energyFull: energy?.1,
                chargeNow: charge?.0, chargeFull: charge?.1)
}

@Suite("PowerState from power supplies")
struct PowerStateDerivationTests {
    @Test func aLaptopOnACHasExternalPowerAndIsNotDischarging() {
        let state = PowerState(supplies: [mains(1), battery(capacity: 64, status: .charging)])
        #expect(state == PowerState(externalPower: true, battery: BatteryLevel(percent: 64, discharging: false)))
    }

    @Test func aLaptopOnBatteryAt15PercentIsDischarging() {
        let state = PowerState(supplies: [mains(0), battery(capacity: 15, status: .discharging)])
        #expect(state == PowerState(externalPower: false, battery: BatteryLevel(percent: 15, discharging: true)))
    }

    @Test func aLaptopOnBatteryAt4PercentIsDischarging() {
        let state = PowerState(supplies: [mains(0), battery(energy: (2_000_000, 50_000_000))])
        #expect(state.battery == BatteryLevel(percent: 4, discharging: true))
        #expect(!state.externalPower)
    }

    @Test func aDesktopWithoutBatteryIsOnExternalPower() {
        #expect(PowerState(supplies: []) == .mains)
        // Not even a Mains supply (a VM, a board without ACPI AC): still external power.
        #expect(PowerState(supplies: [mains(0)]) == .mains)
    }

    @Test func twoBatteriesOfDifferentSizesCombineWeightedByEnergy() {
        // 20 Wh full at 100 % and 80 Wh full at 25 %: 40 of 100 Wh, not the 62 % of an average.
        let state = PowerState(supplies: [
            mains(0),
            battery("BAT0", capacity: 100, status: .full, energy: (20_000_000, 20_000_000)),
            battery("BAT1", capacity: 25, status: .discharging, energy: (20_000_000, 80_000_000)),
        ])
        #expect(state.battery == BatteryLevel(percent: 40, discharging: true))
    }

    @Test func batteriesReportingOnlyChargeCombineByCharge() {
        let state = PowerState(supplies: [
            battery("BAT0", charge: (1_000_000, 2_000_000)),
            battery("BAT1", charge: (500_000, 6_000_000)),
        ])
        #expect(state.battery?.percent == 19)  // 1.5 of 8 Ah
    }

    /// DESIGN §6: one system battery reports its own `capacity`, as the kernel, upower and
    /// desktops show it — not energy_now/energy_full rounded otherwise (74 against its own 73).
    @Test func oneBatteryReportsItsOwnCapacityNotItsEnergyRatio() {
        let state = PowerState(supplies: [mains(0), battery(capacity: 73, energy: (44_500_000, 60_000_000))])
        #expect(state.battery?.percent == 73)
        let energyOnly = PowerState(supplies: [mains(0), battery(energy: (44_500_000, 60_000_000))])
        #expect(energyOnly.battery?.percent == 74)
    }

    @Test func batteriesWithMixedAttributesAverageTheirOwnLevels() {
        let state = PowerState(supplies: [
            battery("BAT0", energy: (30_000_000, 60_000_000)),
            battery("BAT1", capacity: 90),
        ])
        #expect(state.battery?.percent == 70)
    }

    @Test func aUSBCPowerDeliverySupplyThatIsOnlineIsExternalPower() {
        let usb = PowerSupply(name: "ucsi-source-psy-USBC000:001", type: .usb, online: 1)
        let state = PowerState(supplies: [usb, battery(capacity: 50, status: .charging)])
        #expect(state.externalPower)
        #expect(state.battery == BatteryLevel(percent: 50, discharging: false))
    }

    @Test func aUSBPortThatIsOfflineIsNotExternalPower() {
        let usb = PowerSupply(name: "ucsi-source-psy-USBC000:001", type: .usb, online: 0)
        #expect(!PowerState(supplies: [usb, battery(capacity: 50)]).externalPower)
    }

    @Test func oldKernelUSBSubtypesCountAsUSB() {
        let pd = PowerSupply(name: "tcpm-source-psy", type: PowerSupply.SupplyType(attribute: "USB_PD\n"), online: 1)
        #expect(pd.type == .unknown("USB_PD"))
        #expect(PowerState(supplies: [pd, battery(capacity: 50)]).externalPower)
    }

    @Test func aUPSOnLinePowerCountsAsExternalPower() {
        let ups = PowerSupply(name: "ups", type: .ups, online: 1)
        #expect(PowerState(supplies: [ups, battery(capacity: 50)]).externalPower)
        let onItsBattery = PowerSupply(name: "ups", type: .ups, online: 0)
        #expect(!PowerState(supplies: [onItsBattery, battery(capacity: 50)]).externalPower)
    }

    @Test func aMouseBatteryNeverCountsAsTheSystemBattery() {
        let mouse = battery("hidpp_battery_0", capacity: 3, status: .discharging, scope: .device)
        // A desktop with a wireless mouse at 3 %: no system battery, so external power.
        #expect(PowerState(supplies: [mouse]) == .mains)
        // A laptop on AC with the same mouse: the laptop's battery is the level.
        let laptop = PowerState(supplies: [mains(1), battery(capacity: 80, status: .full), mouse])
        #expect(laptop.battery == BatteryLevel(percent: 80, discharging: false))
    }

    @Test func aDeviceScopedChargerNeverCountsAsExternalPower() {
        // A graphics card's USB-C port reports online=1 with scope=Device.
        let gpuPort = PowerSupply(name: "ucsi-source-psy-nvidia", type: .usb, scope: .device, online: 1)
        let state = PowerState(supplies: [gpuPort, mains(0), battery(capacity: 30)])
        #expect(!state.externalPower)
        #expect(state.battery == BatteryLevel(percent: 30, discharging: true))
    }

    @Test func aBatteryThatIsNotPresentIsSkipped() {
        let emptyBay = battery("BAT1", capacity: 0, status: .unknown, present: false)
        let state = PowerState(supplies: [mains(0), battery("BAT0", capacity: 70), emptyBay])
        #expect(state.battery == BatteryLevel(percent: 70, discharging: true))
        // Only an empty bay: no system battery at all.
        #expect(PowerState(supplies: [mains(0), emptyBay]) == .mains)
    }

    @Test func aBatteryWithOnlyCapacityUsesIt() {
        let state = PowerState(supplies: [battery(capacity: 42, status: .discharging, present: nil)])
        #expect(state == PowerState(externalPower: false, battery: BatteryLevel(percent: 42, discharging: true)))
    }

    @Test func aBatteryWithoutAnyLevelLeavesTheLevelUnknownButNotExternalPower() {
        let state = PowerState(supplies: [battery(capacity: nil)])
        #expect(state == PowerState(externalPower: false, battery: nil))
    }

    @Test func withoutExternalPowerABatteryIsDischargingUnlessOneSaysCharging() {
        let unknownStatus = PowerState(supplies: [battery(capacity: 50, status: .unknown)])
        #expect(unknownStatus.battery?.discharging == true)
        let charging = PowerState(supplies: [battery(capacity: 50, status: .charging)])
        #expect(charging.battery?.discharging == false)
    }

    @Test func onExternalPowerADrainingBatteryIsNotDischarging() {
        let state = PowerState(supplies: [mains(1), battery(capacity: 50, status: .discharging)])
        #expect(state.battery == BatteryLevel(percent: 50, discharging: false))
    }

    @Test func attributesParseAsTheKernelWritesThem() {
        #expect(PowerSupply.SupplyType(attribute: "Mains\n") == .mains)
        #expect(PowerSupply.SupplyType(attribute: "Wireless") == .wireless)
        #expect(PowerSupply.Scope(attribute: nil) == .system)
        #expect(PowerSupply.Scope(attribute: "Device\n") == .device)
        #expect(PowerSupply.Scope(attribute: "Unknown\n") == .unknown)
        #expect(PowerSupply.Status(attribute: "Not charging\n") == .notCharging)
        #expect(PowerSupply.Status(attribute: "Full") == .full)
        #expect(PowerSupply.Status(attribute: "bogus") == .unknown)
        #expect(PowerSupply.integer("85\n") == 85)
        #expect(PowerSupply.integer("") == nil)
        #expect(PowerSupply.flag("0\n") == false)
    }

    @Test func energyAboveFullClampsTo100Percent() {
        let state = PowerState(supplies: [battery(status: .full, energy: (51_000_000, 50_000_000))])
        #expect(state.battery?.percent == 100)
    }
}
