// SPDX-License-Identifier: Apache-2.0
/// What `Condition…=` keys ask of the machine; the shell answers from the real file system,
/// `systemd-detect-virt`'s sources and the power supplies, tests from a table.
public protocol ConditionFacts {
    func pathExists(_ path: String) -> Bool
    /// Whether some path matches the glob(7) pattern.
    func globMatches(_ pattern: String) -> Bool
    func isDirectory(_ path: String) -> Bool
    /// A directory with at least one entry besides `.` and `..`.
    func directoryIsNotEmpty(_ path: String) -> Bool
    /// A regular file of non-zero size.
    func fileIsNotEmpty(_ path: String) -> Bool
    /// A regular file with an execute bit.
    func fileIsExecutable(_ path: String) -> Bool
    var virtualization: Virtualization { get }
    /// On external power (systemd's `ConditionACPower=` rule: a machine without batteries is).
    var onACPower: Bool { get }
    /// The agent's capability bounding set, bit N for capability N (`CapBnd` in /proc/self/status).
    var capabilityBoundingSet: UInt64 { get }
}

/// What the machine runs in, as `systemd-detect-virt` names it.
public struct Virtualization: Hashable, Sendable {
    public enum Kind: Hashable, Sendable { case none, vm, container }
    public var kind: Kind
    /// `kvm`, `docker`…; empty for `.none`.
    public var name: String

    public init(kind: Kind, name: String = "") {
        self.kind = kind
        self.name = name
    }

    public static let none = Virtualization(kind: .none)
}

/// The launch-time verdict on a job's `Condition…=` keys (systemd.unit(5)): every plain one must
/// hold, and of the triggering (`|`) ones at least one, if there are any.
public enum ConditionVerdict: Hashable, Sendable {
    case holds
    /// The condition that failed, named as `skipped(…)` shows it.
    case fails(UnitCondition)

    public static func evaluate(_ conditions: [UnitCondition], facts: some ConditionFacts) -> ConditionVerdict {
        var firstFailedTrigger: UnitCondition?
        var anyTriggerHolds = false
        for condition in conditions {
            let holds = condition.holds(facts)
            if condition.triggering {
                if holds { anyTriggerHolds = true } else if firstFailedTrigger == nil { firstFailedTrigger = condition }
            } else if !holds {
                return .fails(condition)
            }
        }
        if let firstFailedTrigger, !anyTriggerHolds { return .fails(firstFailedTrigger) }
        return .holds
    }
}

extension UnitCondition {
    /// This condition against `facts`, negation applied.
    public func holds(_ facts: some ConditionFacts) -> Bool {
        let raw: Bool
        switch check {
        case .pathExists: raw = facts.pathExists(argument)
        case .pathExistsGlob: raw = facts.globMatches(argument)
        case .pathIsDirectory: raw = facts.isDirectory(argument)
        case .directoryNotEmpty: raw = facts.directoryIsNotEmpty(argument)
        case .fileNotEmpty: raw = facts.fileIsNotEmpty(argument)
        case .fileIsExecutable: raw = facts.fileIsExecutable(argument)
        case .acPower: raw = facts.onACPower == (BooleanValue.parse(argument) ?? true)
        case .virtualization: raw = Self.matches(argument, facts.virtualization)
        case .capability:
            raw = CapabilityName.number(of: argument).map { facts.capabilityBoundingSet & (1 << UInt64($0)) != 0 } ?? false
        }
        return raw != negated
    }

    static func matches(_ argument: String, _ virtualization: Virtualization) -> Bool {
        if let flag = BooleanValue.parse(argument) { return (virtualization.kind != .none) == flag }
        switch TextBytes.asciiLowercased(argument) {
        case "vm": return virtualization.kind == .vm
        case "container": return virtualization.kind == .container
        case let name: return virtualization.name == name
        }
    }
}
