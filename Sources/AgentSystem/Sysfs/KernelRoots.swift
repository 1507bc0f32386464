// SPDX-License-Identifier: Apache-2.0
/// Where the kernel's views are mounted: `/sys`, `/proc` and `/dev` on a real system,
/// directories of a fake tree in tests (`agentd --sysfs-root DIR --proc-root DIR`).
public struct KernelRoots: Sendable, Hashable {
    /// The sysfs mount (`/sys`).
    public var sysfs: String
    /// The procfs mount (`/proc`).
    public var proc: String
    /// The device directory (`/dev`), where GPU device nodes are looked for.
    public var dev: String

    public init(sysfs: String = "/sys", proc: String = "/proc", dev: String = "/dev") {
        self.sysfs = sysfs
        self.proc = proc
        self.dev = dev
    }

    /// The real system's roots.
    public static let system = KernelRoots()

    /// `relative` (e.g. `class/power_supply`) under the sysfs root.
    public func sysfsPath(_ relative: String) -> String { Self.join(sysfs, relative) }
    /// `relative` (e.g. `pressure/memory`) under the proc root.
    public func procPath(_ relative: String) -> String { Self.join(proc, relative) }
    /// `relative` (e.g. `nvidia0`) under the device root.
    public func devPath(_ relative: String) -> String { Self.join(dev, relative) }

    /// `SYSFS/class/power_supply`.
    public var powerSupplyDirectory: String { sysfsPath("class/power_supply") }
    /// `SYSFS/class/thermal`.
    public var thermalDirectory: String { sysfsPath("class/thermal") }
    /// `SYSFS/class/drm`.
    public var drmDirectory: String { sysfsPath("class/drm") }
    /// `SYSFS/firmware/acpi/platform_profile`.
    public var platformProfileFile: String { sysfsPath("firmware/acpi/platform_profile") }
    /// `PROC/pressure/NAME` for `cpu`, `memory` or `io`.
    public func pressureFile(_ resource: String) -> String { procPath("pressure/" + resource) }

    /// `base/relative` with exactly one slash between them.
    static func join(_ base: String, _ relative: String) -> String {
        var tail = Substring(relative)
        while tail.first == "/" { tail = tail.dropFirst() }
        if base.isEmpty { return "/" + tail }
        return base.hasSuffix("/") ? base + tail : base + "/" + tail
    }
}
