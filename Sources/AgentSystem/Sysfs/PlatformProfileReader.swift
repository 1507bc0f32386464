// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// Reads `SYSFS/firmware/acpi/platform_profile`.
public struct PlatformProfileReader: Sendable {
    public let roots: KernelRoots

    public init(roots: KernelRoots = .system) {
        self.roots = roots
    }

    /// The current profile, or nil when the file is missing or unreadable (no ACPI platform
    /// profile support).
    public func read() -> PlatformProfile? {
        SmallFile.read(roots.platformProfileFile).map(PlatformProfile.init(attribute:))
    }

    /// Whether the firmware is in `low-power` mode; false without the file.
    public func isLowPower() -> Bool {
        read()?.isLowPower ?? false
    }
}
