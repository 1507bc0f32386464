// SPDX-License-Identifier: Apache-2.0
/// A machine condition that keeps work from starting (DESIGN §6): shown as
/// `waiting: external power`, `waiting: thermal serious`, `waiting: battery low (15%)`.
public enum ConditionHold: Sendable, Hashable, CustomStringConvertible {
    /// `RequiresExternalPower=yes` on battery.
    case externalPower
    /// Battery under `BatteryLow=` and discharging: discretionary work waits.
    case batteryLow(percent: Int)
    /// Battery under `BatteryCritical=` and discharging: all work stops, submissions are refused.
    case batteryCritical(percent: Int)
    /// Low-power mode on battery: processing waits for AC.
    case lowPower
    /// Thermal fair (processing, on battery), serious (discretionary) or critical (all).
    case thermal(ThermalState)
    /// `RequiresNetwork=yes` without a default route.
    case network
    /// `RequiresNetwork=unmetered` on a metered network (NetworkManager's yes or guess-yes).
    case unmeteredNetwork
    /// `RequiresIdle=yes` while the CPU is busy (PSI).
    case idle
    /// PSI memory pressure: discretionary work waits.
    case memoryPressure
    /// `Resources=` names something this machine lacks.
    case resource(String)
    /// The machine is about to sleep (logind's `PrepareForSleep(true)`).
    case sleep
    /// `RequiresIdle=yes` while the user is at the machine, or has been away for less than
    /// `IdleFor=` (whole minutes).
    case userActive(idleMinutes: Int, of: Int)
    /// `RequiresIdle=yes` before logind has told who is at the machine (the moments after the
    /// agent starts or logind reappears): waits rather than start and be expired at once.
    case presenceChecking

    public var description: String {
        switch self {
        case .externalPower: "external power"
        case .batteryLow(let percent): "battery low (\(percent)%)"
        case .batteryCritical(let percent): "battery critical (\(percent)%)"
        case .lowPower: "low-power mode"
        case .thermal(let state): "thermal \(state)"
        case .network: "network"
        case .unmeteredNetwork: "unmetered network"
        case .idle: "idle CPU"
        case .memoryPressure: "memory pressure"
        case .resource(let name): "resource \(name)"
        case .sleep: "machine about to sleep"
        // An IdleFor= under a minute counts no whole minutes: "idle 0 min of 0" would say nothing.
        case .userActive(let idle, let needed): needed == 0 ? "user active" : "user active (idle \(idle) min of \(needed))"
        case .presenceChecking: "user presence not read yet (logind)"
        }
    }

    /// The stop reason a run gets when it loses this condition.
    public var expiryReason: ExpiryReason {
        switch self {
        case .externalPower, .lowPower: .power
        case .batteryLow, .batteryCritical: .battery
        case .thermal: .thermal
        case .network, .unmeteredNetwork: .network
        // RequiresIdle= lost (the CPU got busy, the user came back): §7 has no reason of its own.
        case .memoryPressure, .idle, .userActive, .presenceChecking: .pressure
        case .resource: .resource
        case .sleep: .sleep
        }
    }

    /// Held by who is at the machine (logind), not by the machine itself.
    public var isUserPresence: Bool {
        switch self {
        case .userActive, .presenceChecking: true
        default: false
        }
    }

    /// Holds that no wait cures soon enough for a submission: refused at once (exit 5).
    public var refusesSubmissions: Bool {
        switch self {
        case .batteryCritical, .resource: true
        case .thermal(let state): state == .critical
        default: false
        }
    }
}
