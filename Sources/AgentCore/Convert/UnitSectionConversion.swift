// SPDX-License-Identifier: Apache-2.0
/// A timer's or service's `[Unit]` section → job keys: the conditions agentd checks before a
/// launch (systemd.unit(5)'s, carried over as they are); ordering is named, not converted.
enum UnitSectionConversion {
    static let conditions = Set(UnitCondition.Check.allCases.map(\.key))

    static func convert(_ unit: UnitFile, into job: inout ConvertedJob, isTimer: Bool) {
        let section = isTimer ? "the timer's [Unit]" : "[Unit]"
        for entry in unit.entries(in: "Unit") {
            switch entry.key {
            case "Description", "Documentation", "RefuseManualStart", "RefuseManualStop":
                break
            case "DefaultDependencies":
                // yes is systemd's default; no takes the unit out of boot and shutdown ordering.
                if BooleanValue.parse(entry.value) == false {
                    job.notConverted.append("DefaultDependencies=no (\(section): boot and shutdown ordering; agentd starts "
                        + "jobs once it runs and stops them when it stops)")
                }
            case _ where conditions.contains(entry.key):
                if case .check(let check) = UnitConditionKey.check(entry.key),
                   case .success = UnitCondition.parse(check, entry.value) {
                    // fstrim's timer and service both say ConditionVirtualization=!container.
                    if !job.keys.contains(where: { $0.key == entry.key && $0.value == entry.value }) {
                        job.set(entry.key, entry.value)
                    }
                } else {
                    job.notConverted.append("\(entry.key)=\(entry.value) (a value agentd cannot check)")
                }
            case "After", "Wants", "Requires", "Before", "BindsTo", "PartOf", "Conflicts":
                // A service's ordering against its own timer says nothing a job could; a timer's
                // (apt-daily-upgrade.timer's After=apt-daily.timer) is named.
                let units = entry.value.split(separator: " ").map(String.init).filter { isTimer || !$0.hasSuffix(".timer") }
                guard !units.isEmpty else { break }
                if isTimer {
                    job.notConverted.append("\(entry.key)=\(units.joined(separator: " ")) (\(section): ordering of the timer "
                        + "against other units)")
                    break
                }
                // systemd waits for network-online.target at boot only, and never stops the service
                // when the network goes; RequiresNetwork=yes would do both before and during each run.
                let network = entry.key != "Before" && entry.key != "Conflicts" && units.contains("network-online.target")
                job.notConverted.append("\(entry.key)=\(units.joined(separator: " ")) (ordering against other units"
                    + (network ? "; RequiresNetwork=yes would wait for a network before each run, and end a run "
                        + "when it goes" : "") + ")")
            default:
                let why = entry.key.hasPrefix("Condition") || entry.key.hasPrefix("Assert")
                    ? "a start condition agentd does not check" : "\(section) key with no agentd equivalent"
                job.notConverted.append("\(entry.key)=\(entry.value) (\(why))")
            }
        }
    }
}

/// A `Condition…` key's check, for the converters.
enum UnitConditionKey {
    case check(UnitCondition.Check)
    case unknown

    static func check(_ key: String) -> UnitConditionKey {
        UnitCondition.Check.allCases.first { $0.key == key }.map(UnitConditionKey.check) ?? .unknown
    }
}
