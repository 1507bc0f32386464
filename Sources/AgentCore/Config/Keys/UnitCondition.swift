// SPDX-License-Identifier: Apache-2.0
/// One `Condition…=` of a job, as systemd.unit(5) writes them: checked right before a launch;
/// a false one records the run `skipped(ConditionPathExists=/x)` and spawns nothing.
///
/// `|` first makes it a triggering condition (of those, at least one must hold), then `!`
/// negates it: `ConditionPathExists=|!/run/x`.
public struct UnitCondition: Hashable, Sendable, CustomStringConvertible {
    public enum Check: String, Hashable, Sendable, CaseIterable {
        case pathExists = "PathExists"
        case pathExistsGlob = "PathExistsGlob"
        case pathIsDirectory = "PathIsDirectory"
        case directoryNotEmpty = "DirectoryNotEmpty"
        case fileNotEmpty = "FileNotEmpty"
        case fileIsExecutable = "FileIsExecutable"
        case virtualization = "Virtualization"
        case acPower = "ACPower"
        /// In the agent's capability bounding set, as systemd checks its own (e2scrub_all asks
        /// for CAP_SYS_RAWIO, which a container's root lacks).
        case capability = "Capability"

        /// `ConditionPathExists`.
        public var key: String { "Condition" + rawValue }
        var takesPath: Bool { self != .virtualization && self != .acPower && self != .capability }
    }

    public var check: Check
    /// The path, glob, virtualization name or boolean, without `|` and `!`.
    public var argument: String
    public var negated: Bool
    public var triggering: Bool

    public init(check: Check, argument: String, negated: Bool = false, triggering: Bool = false) {
        self.check = check
        self.argument = argument
        self.negated = negated
        self.triggering = triggering
    }

    /// `ConditionPathExists=|!/x`: how a skip names it.
    public var description: String {
        "\(check.key)=\(triggering ? "|" : "")\(negated ? "!" : "")\(argument)"
    }

    /// The words `ConditionVirtualization=` takes besides a boolean (systemd-detect-virt's names).
    static let virtualizationNames: Set<String> = [
        "vm", "container", "qemu", "kvm", "amazon", "zvm", "vmware", "microsoft", "oracle", "powervm",
        "xen", "bochs", "uml", "parallels", "bhyve", "qnx", "acrn", "apple", "sre", "google",
        "openvz", "lxc", "lxc-libvirt", "systemd-nspawn", "docker", "podman", "rkt", "wsl", "proot", "pouch",
    ]

    /// Reads `value` for `check`; the error says what would be valid.
    static func parse(_ check: Check, _ value: String) -> Result<UnitCondition, ConditionError> {
        var text = Substring(value)
        var triggering = false, negated = false
        if text.first == "|" { triggering = true; text = text.dropFirst() }
        if text.first == "!" { negated = true; text = text.dropFirst() }
        let argument = String(text)
        if check.takesPath {
            guard argument.utf8.first == TextBytes.slash else {
                return .failure(ConditionError(message: "\(TextBytes.quoted(argument)) is not an absolute path "
                    + "(write \(check.key)=/path, with | and ! in front as systemd.unit(5) allows)"))
            }
        } else if check == .acPower {
            guard BooleanValue.parse(argument) != nil else {
                return .failure(ConditionError(message: "\(TextBytes.quoted(argument)) is not a boolean "
                    + "(\(BooleanValue.validSpellings))"))
            }
        } else if check == .capability {
            guard CapabilityName.number(of: argument) != nil else {
                return .failure(ConditionError(message: "\(TextBytes.quoted(argument)) is not a capability "
                    + "(a name from capabilities(7), such as CAP_SYS_ADMIN or CAP_SYS_RAWIO)"))
            }
        } else if BooleanValue.parse(argument) == nil,
                  !virtualizationNames.contains(TextBytes.asciiLowercased(argument)),
                  !argument.hasPrefix("private-users")
        {
            return .failure(ConditionError(message: "\(TextBytes.quoted(argument)) is not a virtualization "
                + "(a boolean, vm, container, or a name such as kvm, qemu, docker, lxc)"))
        }
        return .success(UnitCondition(check: check, argument: argument, negated: negated, triggering: triggering))
    }
}

/// Why a `Condition…=` value is not one.
struct ConditionError: Error, Hashable, Sendable {
    var message: String
}
