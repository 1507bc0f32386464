// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentTestSupport
import Glibc
import Testing
@testable import AgentSystem

private func roots(_ tree: FakeSysfsTree) -> KernelRoots {
    KernelRoots(sysfs: tree.sysfsRoot, proc: "/nonexistent-proc", dev: tree.devRoot)
}

@Suite("Power supply reader")
struct PowerSupplyReaderTests {
    @Test(arguments: [false, true])
    func aLaptopTreeReadsAsTheKernelDescribesIt(symlinked: Bool) throws {
        let tree = try FakeSysfsTree(symlinkedClassEntries: symlinked)
        try tree.addMains(name: "AC", online: true)
            .addBattery(name: "BAT0", capacity: 64, status: "Charging",
                        energyNow: 32_000_000, energyFull: 50_000_000)
        let reader = PowerSupplyReader(roots: roots(tree))
        let supplies = reader.readAll()
        #expect(supplies.map(\.name) == ["AC", "BAT0"])
        #expect(supplies.first == PowerSupply(name: "AC", type: .mains, online: 1))
        #expect(supplies.last == PowerSupply(
            name: "BAT0", type: .battery, present: true, capacity: 64, status: .charging,
            energyNow: 32_000_000, energyFull: 50_000_000))
        #expect(reader.powerState() == PowerState(
            externalPower: true, battery: BatteryLevel(percent: 64, discharging: false)))
    }

    @Test func unpluggingIsSeenOnTheNextRead() throws {
        let tree = try FakeSysfsTree()
        try tree.addMains().addBattery(capacity: 15, status: "Charging")
        let reader = PowerSupplyReader(roots: roots(tree))
        #expect(reader.powerState().externalPower)
        try tree.setOnline("AC", false).setStatus("BAT0", "Discharging").setCapacity("BAT0", 14)
        #expect(reader.powerState() == PowerState(
            externalPower: false, battery: BatteryLevel(percent: 14, discharging: true)))
    }

    @Test func aUSBCPowerDeliveryPortFeedsTheLaptop() throws {
        let tree = try FakeSysfsTree(symlinkedClassEntries: true)
        try tree.addUSB(online: true, pd: true).addBattery(capacity: 50, status: "Charging")
        #expect(PowerSupplyReader(roots: roots(tree)).powerState().externalPower)
    }

    @Test func aMouseBatteryWithDeviceScopeIsNotTheSystemBattery() throws {
        let tree = try FakeSysfsTree()
        try tree.addMains().addBattery(name: "hidpp_battery_0", capacity: 3, scope: "Device")
        let supplies = PowerSupplyReader(roots: roots(tree)).readAll()
        #expect(supplies.last?.scope == .device)
        #expect(PowerState(supplies: supplies) == .mains)
    }

    @Test func missingAndUnreadableAttributesAreNilNeverFatal() throws {
        let tree = try FakeSysfsTree()
        try tree.addBattery(name: "BAT0", capacity: nil, status: "Unknown", present: nil)
        // An attribute the driver fails to read (EIO in real sysfs): here a directory, EISDIR.
        try FakeTreeFilesForTests.makeDirectory(tree.supplyPath("BAT0") + "/energy_now")
        try tree.setAttribute(supply: "BAT0", "charge_now", "not-a-number")
        let battery = try #require(PowerSupplyReader(roots: roots(tree)).read(name: "BAT0"))
        #expect(battery == PowerSupply(name: "BAT0", type: .battery, status: .unknown))
    }

    @Test func anEntryWithoutTypeIsNotASupply() throws {
        let tree = try FakeSysfsTree()
        try tree.addMains().addSupply(name: "odd", attributes: ["online": "1"])
        #expect(PowerSupplyReader(roots: roots(tree)).readAll().map(\.name) == ["AC"])
    }

    @Test func aMissingPowerSupplyClassIsADesktop() {
        let reader = PowerSupplyReader(roots: KernelRoots(sysfs: "/nonexistent-sysfs"))
        #expect(reader.readAll().isEmpty)
        #expect(reader.powerState() == .mains)
    }
}

@Suite("Thermal zone reader")
struct ThermalZoneReaderTests {
    @Test(arguments: [false, true])
    func zonesAndTheirTripsAreRead(symlinked: Bool) throws {
        let tree = try FakeSysfsTree(symlinkedClassEntries: symlinked)
        try tree.addThermalZone(index: 0, type: "acpitz", tempC: 40,
                                trips: [("critical", 110), ("active", 50)])
            .addThermalZone(index: 1, type: "x86_pkg_temp", tempC: 82.5,
                            trips: [("passive", 90), ("hot", 100), ("critical", 105)])
        let zones = ThermalZoneReader(roots: roots(tree)).readAll()
        #expect(zones.map(\.name) == ["thermal_zone0", "thermal_zone1"])
        #expect(zones.last == ThermalZone(
            name: "thermal_zone1", type: "x86_pkg_temp", temperatureMilli: 82_500,
            trips: [ThermalTrip(kind: .passive, temperatureMilli: 90_000),
                    ThermalTrip(kind: .hot, temperatureMilli: 100_000),
                    ThermalTrip(kind: .critical, temperatureMilli: 105_000)]))
        let assessment = ThermalZoneReader(roots: roots(tree)).assessment(settings: .defaults)
        #expect(assessment.description == "fair (x86_pkg_temp 83 °C, 8 °C below passive)")
    }

    @Test func zonesComeInNumberOrderAndCoolingDevicesAreSkipped() throws {
        let tree = try FakeSysfsTree()
        try tree.addThermalZone(index: 10, type: "ten", tempC: 30)
            .addThermalZone(index: 2, type: "two", tempC: 30)
        try FakeTreeFilesForTests.makeDirectory(tree.sysfsRoot + "/class/thermal/cooling_device0")
        try FakeTreeFilesForTests.makeDirectory(tree.sysfsRoot + "/class/thermal/thermal_zoneX")
        #expect(ThermalZoneReader(roots: roots(tree)).readAll().map(\.type) == ["two", "ten"])
    }

    @Test func aTemperatureChangeIsSeenOnTheNextRead() throws {
        let tree = try FakeSysfsTree()
        try tree.addThermalZone(index: 0, type: "cpu", tempC: 50, trips: [("passive", 90)])
        let reader = ThermalZoneReader(roots: roots(tree))
        #expect(reader.assessment(settings: .defaults).state == .nominal)
        try tree.setTemperature(zone: 0, tempC: 91)
        #expect(reader.assessment(settings: .defaults).state == .serious)
    }

    @Test func anUnreadableTemperatureAndTripAreLeftOut() throws {
        let tree = try FakeSysfsTree()
        try tree.addThermalZone(index: 0, type: "nvme", tempC: 50, trips: [("passive", 80), ("critical", 90)])
        try FakeTreeFilesForTests.remove(tree.zonePath(0) + "/temp")
        try FakeTreeFilesForTests.write(tree.zonePath(0) + "/trip_point_0_temp", "garbage\n")
        let zone = ThermalZoneReader(roots: roots(tree)).read(name: "thermal_zone0")
        #expect(zone.temperatureMilli == nil)
        #expect(zone.trips == [ThermalTrip(kind: .critical, temperatureMilli: 90_000)])
    }

    @Test func noThermalClassIsNominal() {
        let reader = ThermalZoneReader(roots: KernelRoots(sysfs: "/nonexistent-sysfs"))
        #expect(reader.assessment(settings: .defaults).state == .nominal)
    }
}

@Suite("Platform profile reader")
struct PlatformProfileReaderTests {
    @Test func lowPowerFollowsTheFirmwareProfile() throws {
        let tree = try FakeSysfsTree()
        let reader = PlatformProfileReader(roots: roots(tree))
        #expect(reader.read() == nil)
        #expect(!reader.isLowPower())
        try tree.setPlatformProfile("low-power")
        #expect(reader.isLowPower())
        try tree.setPlatformProfile("quiet")
        #expect(reader.read()?.name == "quiet")
        #expect(!reader.isLowPower())
        try tree.setPlatformProfile(nil)
        #expect(reader.read() == nil)
    }
}

@Suite("GPU probe")
struct GPUProbeTests {
    @Test func aMachineWithoutGPUsHasNone() throws {
        let tree = try FakeSysfsTree()
        #expect(GPUProbe(roots: roots(tree)).probe().isEmpty)
        #expect(!GPUProbe(roots: roots(tree)).hasGPU())
    }

    @Test func drmCardsAreListedWithTheirDriverAndConnectorsAreNot() throws {
        let tree = try FakeSysfsTree()
        try tree.addDRMCard(index: 1, driver: "amdgpu").addDRMCard(index: 0, driver: "i915")
        let gpus = GPUProbe(roots: roots(tree)).probe()
        #expect(gpus == [
            GPU(name: "card0", driver: "i915", path: tree.sysfsRoot + "/class/drm/card0"),
            GPU(name: "card1", driver: "amdgpu", path: tree.sysfsRoot + "/class/drm/card1"),
        ])
    }

    @Test func aCardWithoutDriverLinkIsListedAndAFramebufferIsNot() throws {
        let tree = try FakeSysfsTree()
        try tree.addDRMCard(index: 0, driver: "simple-framebuffer").addDRMCard(index: 1, driver: nil)
        #expect(GPUProbe(roots: roots(tree)).probe().map(\.name) == ["card1"])
        #expect(GPUProbe(roots: roots(tree)).probe().first?.driver == nil)
    }

    @Test func nvidiaDeviceNodesAreGPUsWithoutADRMCard() throws {
        let tree = try FakeSysfsTree()
        try tree.addNvidiaDevice(index: 1).addNvidiaDevice(index: 0)
        #expect(GPUProbe(roots: roots(tree)).probe() == [
            GPU(name: "nvidia0", driver: "nvidia", path: tree.devRoot + "/nvidia0"),
            GPU(name: "nvidia1", driver: "nvidia", path: tree.devRoot + "/nvidia1"),
        ])
    }

    @Test func nvidiaNodesAreNotListedTwiceBesideNvidiaDRMCards() throws {
        let tree = try FakeSysfsTree()
        try tree.addDRMCard(index: 0, driver: "nvidia").addNvidiaDevice(index: 0)
        #expect(GPUProbe(roots: roots(tree)).probe().map(\.name) == ["card0"])
    }
}

@Suite("Kernel roots")
struct KernelRootsTests {
    @Test func pathsJoinWithOneSlash() {
        let roots = KernelRoots(sysfs: "/tmp/x/sys/", proc: "/tmp/x/proc", dev: "/dev")
        #expect(roots.powerSupplyDirectory == "/tmp/x/sys/class/power_supply")
        #expect(roots.pressureFile("memory") == "/tmp/x/proc/pressure/memory")
        #expect(roots.devPath("/nvidia0") == "/dev/nvidia0")
        #expect(KernelRoots.system.platformProfileFile == "/sys/firmware/acpi/platform_profile")
        #expect(KernelRoots.system.thermalDirectory == "/sys/class/thermal")
    }
}

/// Steps the fixtures do not offer, for the bad-input tests.
enum FakeTreeFilesForTests {
    struct Failure: Error { var step: String }

    static func makeDirectory(_ path: String) throws {
        guard mkdir(path, 0o755) == 0 else { throw Failure(step: "mkdir \(path)") }
    }

    static func remove(_ path: String) throws {
        guard unlink(path) == 0 else { throw Failure(step: "unlink \(path)") }
    }

    static func write(_ path: String, _ text: String) throws {
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(step: "open \(path)") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
            throw Failure(step: "write \(path)")
        }
    }
}
