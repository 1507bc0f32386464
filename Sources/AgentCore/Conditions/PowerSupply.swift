// SPDX-License-Identifier: Apache-2.0
/// One power supply as the kernel describes it in `/sys/class/power_supply/NAME/`.
///
/// Every attribute is optional: drivers fill in different subsets, and a reader that cannot
/// read an attribute leaves it nil. Interpretation (which supplies count, how batteries combine)
/// lives in `PowerState.init(supplies:)`, not here.
public struct PowerSupply: Sendable, Hashable {
    /// The `type` attribute.
    public enum SupplyType: Sendable, Hashable {
        case mains, usb, battery, ups, wireless
        /// Any other value (`USB_PD`, `USB_C` and the like on older kernels, `BMS`, …), kept as read.
        case unknown(String)

        /// Interprets the `type` attribute (surrounding whitespace ignored, case as the kernel
        /// writes it: `Mains`, `USB`, `Battery`, `UPS`, `Wireless`; compared case-insensitively).
        public init(attribute: String) {
            let value = PowerSupply.trimmed(attribute)
            switch value.lowercased() {
            case "mains": self = .mains
            case "usb": self = .usb
            case "battery": self = .battery
            case "ups": self = .ups
            case "wireless": self = .wireless
            default: self = .unknown(value)
            }
        }
    }

    /// The `scope` attribute: whether the supply powers the system or only a device.
    public enum Scope: Sendable, Hashable {
        /// Powers the machine. An absent `scope` attribute means this.
        case system
        /// Powers a peripheral (a mouse, a headset, a graphics card's USB-C port).
        case device
        /// `Unknown` as the kernel reports it, or a value this reader does not know. Treated like
        /// `system` by the policy (the kernel uses it for supplies whose scope it cannot tell).
        case unknown

        /// Interprets the `scope` attribute; nil (absent) means `system`.
        public init(attribute: String?) {
            guard let attribute else { self = .system; return }
            switch PowerSupply.trimmed(attribute).lowercased() {
            case "system": self = .system
            case "device": self = .device
            default: self = .unknown
            }
        }
    }

    /// The `status` attribute of a battery (also present on some chargers).
    public enum Status: Sendable, Hashable {
        case charging, discharging, notCharging, full, unknown

        /// Interprets `Charging`, `Discharging`, `Not charging`, `Full`; anything else is unknown.
        public init(attribute: String?) {
            guard let attribute else { self = .unknown; return }
            switch PowerSupply.trimmed(attribute).lowercased() {
            case "charging": self = .charging
            case "discharging": self = .discharging
            case "not charging": self = .notCharging
            case "full": self = .full
            default: self = .unknown
            }
        }
    }

    /// The directory name under `/sys/class/power_supply` (`AC`, `BAT0`, `ucsi-source-psy-…`).
    public var name: String
    public var type: SupplyType
    public var scope: Scope
    /// `online`: 1 (or more, e.g. 2 for a USB port in "programmable" mode) when feeding power.
    public var online: Int?
    /// `present`: false for an empty battery bay. nil when the driver has no such attribute.
    public var present: Bool?
    /// `capacity` in percent.
    public var capacity: Int?
    public var status: Status
    /// `energy_now` / `energy_full` in µWh.
    public var energyNow: Int?
    public var energyFull: Int?
    /// `charge_now` / `charge_full` in µAh (drivers that report charge instead of energy).
    public var chargeNow: Int?
    public var chargeFull: Int?

    public init(name: String, type: SupplyType, scope: Scope = .system, online: Int? = nil,
                present: Bool? = nil, capacity: Int? = nil, status: Status = .unknown,
                energyNow: Int? = nil, energyFull: Int? = nil,
                chargeNow: Int? = nil, chargeFull: Int? = nil)
    {
        self.name = name
        self.type = type
        self.scope = scope
        self.online = online
        self.present = present
        self.capacity = capacity
        self.status = status
        self.energyNow = energyNow
        self.energyFull = energyFull
        self.chargeNow = chargeNow
        self.chargeFull = chargeFull
    }

    /// Parses an integer attribute (`"85\n"`); nil for anything that is not a decimal integer.
    public static func integer(_ attribute: String?) -> Int? {
        guard let attribute else { return nil }
        return Int(trimmed(attribute))
    }

    /// Parses a boolean-as-integer attribute such as `present` (`0` false, other integers true).
    public static func flag(_ attribute: String?) -> Bool? {
        integer(attribute).map { $0 != 0 }
    }

    /// The value without leading and trailing spaces, tabs and newlines (sysfs ends with `\n`).
    static func trimmed(_ text: String) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        var slice = Substring(text)
        while let first = slice.first, isSpace(first) { slice = slice.dropFirst() }
        while let last = slice.last, isSpace(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
