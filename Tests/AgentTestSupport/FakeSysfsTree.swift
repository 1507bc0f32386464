// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A fake `/sys` (and `/dev`) under a temporary directory, for readers and integration tests
/// (`agentd --sysfs-root tree.sysfsRoot`). Removed with everything in it when the value goes away.
///
/// The helpers write what the kernel writes (values with a trailing newline) and return the tree,
/// so a machine reads as one expression:
/// ```
/// let tree = try FakeSysfsTree()
/// try tree.addMains(online: false).addBattery(name: "BAT0", capacity: 15, status: "Discharging")
/// ```
public final class FakeSysfsTree {
    /// The temporary directory holding `sys/` and `dev/`.
    public let base: String
    /// The fake `/sys`.
    public let sysfsRoot: String
    /// The fake `/dev` (for GPU device nodes).
    public let devRoot: String
    /// Whether `class/power_supply` and `class/thermal` entries are symbolic links into
    /// `devices/`, as on a real system, instead of plain directories.
    public let symlinkedClassEntries: Bool

    public init(symlinkedClassEntries: Bool = false) throws {
        base = try FakeTreeFiles.makeTemporaryDirectory(tag: "sysfs")
        sysfsRoot = base + "/sys"
        devRoot = base + "/dev"
        self.symlinkedClassEntries = symlinkedClassEntries
        try FakeTreeFiles.makeDirectories(sysfsRoot + "/class/power_supply")
        try FakeTreeFiles.makeDirectories(sysfsRoot + "/class/thermal")
        try FakeTreeFiles.makeDirectories(devRoot)
    }

    deinit {
        FakeTreeFiles.removeTree(base)
    }

    // MARK: Power supplies

    /// The directory of supply `name` (`SYS/class/power_supply/NAME`).
    public func supplyPath(_ name: String) -> String { sysfsRoot + "/class/power_supply/" + name }

    /// Adds a supply with the given attributes (`type` among them). Values get a trailing newline.
    @discardableResult
    public func addSupply(name: String, attributes: [String: String]) throws -> Self {
        try makeClassEntry(class: "power_supply", name: name, device: "devices/platform/\(name)/power_supply/\(name)")
        for (key, value) in attributes.sorted(by: { $0.key < $1.key }) {
            try setAttribute(supply: name, key, value)
        }
        return self
    }

    /// An AC adapter (`type=Mains`).
    @discardableResult
    public func addMains(name: String = "AC", online: Bool = true) throws -> Self {
        try addSupply(name: name, attributes: ["type": "Mains", "online": online ? "1" : "0"])
    }

    /// A USB(-C) port supply (`type=USB`); with `pd`, a `usb_type` listing PD as the active mode.
    @discardableResult
    public func addUSB(name: String = "ucsi-source-psy-USBC000:001", online: Bool = true,
                       pd: Bool = true) throws -> Self
    {
        try addSupply(name: name, attributes: [
            "type": "USB", "online": online ? "1" : "0", "scope": "System",
            "usb_type": pd ? "C PD [PD_PPS]" : "[C] PD PD_PPS",
        ])
    }

    /// A battery. nil leaves an attribute out; `scope` nil writes none (system), else e.g.
    /// `Device`; `present` nil writes none.
    @discardableResult
    public func addBattery(name: String = "BAT0", capacity: Int? = 80, status: String = "Discharging",
                           energyNow: Int? = nil, energyFull: Int? = nil, scope: String? = nil,
                           present: Bool? = true) throws -> Self
    {
        var attributes = ["type": "Battery", "status": status]
        if let capacity { attributes["capacity"] = String(capacity) }
        if let energyNow { attributes["energy_now"] = String(energyNow) }
        if let energyFull { attributes["energy_full"] = String(energyFull) }
        if let scope { attributes["scope"] = scope }
        if let present { attributes["present"] = present ? "1" : "0" }
        return try addSupply(name: name, attributes: attributes)
    }

    /// Sets (or, with nil, removes) one attribute of a supply.
    @discardableResult
    public func setAttribute(supply name: String, _ key: String, _ value: String?) throws -> Self {
        let path = supplyPath(name) + "/" + key
        if let value {
            try FakeTreeFiles.write(path, value + "\n")
        } else {
            try FakeTreeFiles.remove(path)
        }
        return self
    }

    @discardableResult
    public func setOnline(_ name: String, _ online: Bool) throws -> Self {
        try setAttribute(supply: name, "online", online ? "1" : "0")
    }

    @discardableResult
    public func setCapacity(_ name: String, _ capacity: Int) throws -> Self {
        try setAttribute(supply: name, "capacity", String(capacity))
    }

    /// `Charging`, `Discharging`, `Not charging`, `Full`, `Unknown`.
    @discardableResult
    public func setStatus(_ name: String, _ status: String) throws -> Self {
        try setAttribute(supply: name, "status", status)
    }

    // MARK: Thermal

    /// The directory of zone `index` (`SYS/class/thermal/thermal_zoneN`).
    public func zonePath(_ index: Int) -> String { sysfsRoot + "/class/thermal/thermal_zone\(index)" }

    /// A thermal zone with its trips as `(type, °C)` pairs, e.g. `[("passive", 90), ("critical", 105)]`.
    @discardableResult
    public func addThermalZone(index: Int, type: String, tempC: Double,
                               trips: [(String, Double)] = []) throws -> Self
    {
        try makeClassEntry(class: "thermal", name: "thermal_zone\(index)",
                           device: "devices/virtual/thermal/thermal_zone\(index)")
        let path = zonePath(index)
        try FakeTreeFiles.write(path + "/type", type + "\n")
        try FakeTreeFiles.write(path + "/temp", "\(FakeTreeFiles.milli(tempC))\n")
        for (number, trip) in trips.enumerated() {
            try FakeTreeFiles.write(path + "/trip_point_\(number)_type", trip.0 + "\n")
            try FakeTreeFiles.write(path + "/trip_point_\(number)_temp", "\(FakeTreeFiles.milli(trip.1))\n")
        }
        return self
    }

    @discardableResult
    public func setTemperature(zone index: Int, tempC: Double) throws -> Self {
        try FakeTreeFiles.write(zonePath(index) + "/temp", "\(FakeTreeFiles.milli(tempC))\n")
        return self
    }

    // MARK: Platform profile, GPUs

    /// Writes `firmware/acpi/platform_profile` (`low-power`, `balanced`, …); nil removes it.
    @discardableResult
    public func setPlatformProfile(_ profile: String?) throws -> Self {
        let path = sysfsRoot + "/firmware/acpi/platform_profile"
        if let profile {
            try FakeTreeFiles.write(path, profile + "\n")
        } else {
            try FakeTreeFiles.remove(path)
        }
        return self
    }

    /// A DRM card `class/drm/cardN`, its `device/driver` link to `bus/pci/drivers/DRIVER` when
    /// `driver` is given, its connector entries (`cardN-HDMI-A-1`, …) and a render node.
    @discardableResult
    public func addDRMCard(index: Int = 0, driver: String? = nil,
                           connectors: [String] = ["eDP-1", "HDMI-A-1"]) throws -> Self
    {
        let drm = sysfsRoot + "/class/drm"
        let card = drm + "/card\(index)"
        try FakeTreeFiles.write(card + "/dev", "226:\(index)\n")
        try FakeTreeFiles.makeDirectories(card + "/device")
        if let driver {
            let driverDirectory = sysfsRoot + "/bus/pci/drivers/" + driver
            try FakeTreeFiles.makeDirectories(driverDirectory)
            try FakeTreeFiles.symlink(target: driverDirectory, at: card + "/device/driver")
        }
        for connector in connectors {
            try FakeTreeFiles.write(drm + "/card\(index)-\(connector)/status", "connected\n")
        }
        try FakeTreeFiles.write(drm + "/renderD\(128 + index)/dev", "226:\(128 + index)\n")
        return self
    }

    /// Removes DRM card `cardN` with its connectors and render node, as unplugging an eGPU does.
    @discardableResult
    public func removeDRMCard(index: Int = 0) throws -> Self {
        let drm = sysfsRoot + "/class/drm"
        guard let directory = opendir(drm) else { throw FakeTreeError("opendir", drm) }
        var names: [String] = []
        while let entry = readdir(directory) {
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            })
        }
        closedir(directory)
        for name in names where name == "card\(index)" || name.hasPrefix("card\(index)-") || name == "renderD\(128 + index)" {
            FakeTreeFiles.removeTree(drm + "/" + name)
        }
        return self
    }

    /// An NVIDIA device node `dev/nvidiaN` (a regular file standing in for the character device),
    /// with `nvidiactl` and `nvidia-uvm` beside it as on a real system.
    @discardableResult
    public func addNvidiaDevice(index: Int = 0) throws -> Self {
        try FakeTreeFiles.write(devRoot + "/nvidia\(index)", "")
        try FakeTreeFiles.write(devRoot + "/nvidiactl", "")
        try FakeTreeFiles.write(devRoot + "/nvidia-uvm", "")
        return self
    }

    // MARK: Private

    /// Creates `class/CLASS/NAME`: a plain directory, or a link to `DEVICE` under the root.
    private func makeClassEntry(class className: String, name: String, device: String) throws {
        let entry = sysfsRoot + "/class/\(className)/" + name
        var info = stat()
        guard lstat(entry, &info) != 0 else { return }
        if symlinkedClassEntries {
            let target = sysfsRoot + "/" + device
            try FakeTreeFiles.makeDirectories(target)
            try FakeTreeFiles.symlink(target: "../../" + device, at: entry)
        } else {
            try FakeTreeFiles.makeDirectories(entry)
        }
    }
}
