// SPDX-License-Identifier: Apache-2.0
/// The ACPI platform profile (`/sys/firmware/acpi/platform_profile`), as far as the policy
/// cares: whether the firmware has been put into low-power mode.
///
/// Only `low-power` means low power (DESIGN §6). `quiet` and `cool` are not: they trade speed
/// for fan noise or surface temperature, which the thermal state already covers, and treating
/// them as low power would defer processing work on machines that merely want to be silent.
/// An absent file (no ACPI platform profile support) means not low power.
public struct PlatformProfile: Sendable, Hashable, CustomStringConvertible {
    /// The profile name without surrounding whitespace (`balanced`, `low-power`, `performance`, …).
    public var name: String

    /// Interprets the file's contents (the trailing newline and any whitespace trimmed).
    public init(attribute: String) {
        name = PowerSupply.trimmed(attribute)
    }

    /// Whether this profile is `low-power`.
    public var isLowPower: Bool { name == "low-power" }

    public var description: String { name }
}
