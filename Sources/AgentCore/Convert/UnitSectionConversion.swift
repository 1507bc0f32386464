// SPDX-License-Identifier: Apache-2.0
/// A timer's or service's `[Unit]` section → job keys: the conditions agentd checks before a
/// launch (systemd.unit(5)'s, carried over as they are), the network ordering as a need.
enum UnitSectionConversion {
    static let conditions = Set(UnitCondition.Check.allCases.map(\.key))

    static func convert(_ unit: UnitFile, into job: inout ConvertedJob, context: inout TimerConverter.Context,
                        isTimer: Bool) {
        let section = isTimer ? "the timer's [Unit]" : "[Unit]"
        for entry in unit.entries(in: "Unit") {
            switch entry.key {
            case "Description", "Documentation", "DefaultDependencies", "RefuseManualStart", "RefuseManualStop":
                break
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
                let units = entry.value.split(separator: " ").map(String.init)
                if entry.key != "Before", entry.key != "Conflicts",
                   units.contains(where: TimerConverter.networkTargets.contains)
                    || units.contains(where: { $0.hasPrefix("NetworkManager") }) {
                    context.needsNetwork = true
                }
                let others = units.filter { !TimerConverter.networkTargets.contains($0) && !$0.hasSuffix(".timer") }
                if !others.isEmpty, !isTimer {
                    job.notConverted.append("\(entry.key)=\(others.joined(separator: " ")) (ordering against other units)")
                }
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
