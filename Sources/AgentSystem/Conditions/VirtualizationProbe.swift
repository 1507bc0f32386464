// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Glibc

/// What the machine runs in, for `ConditionVirtualization=`, from the files `systemd-detect-virt`
/// reads (no process is run): a container first — `/run/systemd/container` (written by systemd
/// in a container, or by the container manager), `container=` in PID 1's environment,
/// `/.dockerenv`, `/run/.containerenv` — then a VM from the DMI strings of
/// `/sys/class/dmi/id` (`sys_vendor`, `product_name`, `bios_vendor`, `board_vendor`), then the
/// CPU's `hypervisor` flag in `/proc/cpuinfo` (`vm-other`, as systemd names an unknown one).
/// Roots are parameters so that tests use fake trees.
public enum VirtualizationProbe {
    public static func detect(procRoot: String = "/proc", sysfsRoot: String = "/sys", root: String = "") -> Virtualization {
        if let name = SmallFile.value(root + "/run/systemd/container"), !name.isEmpty {
            return Virtualization(kind: .container, name: name)
        }
        if let environ = SmallFile.read(procRoot + "/1/environ") {
            for entry in environ.split(separator: "\0") where entry.hasPrefix("container=") {
                let name = String(entry.dropFirst("container=".count))
                if !name.isEmpty { return Virtualization(kind: .container, name: name) }
            }
        }
        if access(root + "/.dockerenv", F_OK) == 0 { return Virtualization(kind: .container, name: "docker") }
        if access(root + "/run/.containerenv", F_OK) == 0 { return Virtualization(kind: .container, name: "podman") }
        let dmi = ["sys_vendor", "product_name", "bios_vendor", "board_vendor"].compactMap {
            SmallFile.value(sysfsRoot + "/class/dmi/id/" + $0)
        }
        for text in dmi {
            for (vendor, name) in dmiVendors where text.hasPrefix(vendor) {
                return Virtualization(kind: .vm, name: name)
            }
        }
        if let cpuinfo = SmallFile.read(procRoot + "/cpuinfo", limit: 4 << 20),
           cpuinfo.split(separator: "\n").contains(where: { $0.hasPrefix("flags") && $0.split(separator: " ").contains("hypervisor") })
        {
            return Virtualization(kind: .vm, name: "vm-other")
        }
        return .none
    }

    /// systemd's `detect_vm_dmi` table: DMI vendor prefixes and the names it gives them.
    static let dmiVendors: [(String, String)] = [
        ("KVM", "kvm"), ("OpenStack", "kvm"), ("KubeVirt", "kvm"), ("Amazon EC2", "amazon"),
        ("QEMU", "qemu"), ("VMware", "vmware"), ("VMW", "vmware"), ("innotek GmbH", "oracle"),
        ("VirtualBox", "oracle"), ("Oracle Corporation", "oracle"), ("Xen", "xen"), ("Bochs", "bochs"),
        ("Parallels", "parallels"), ("BHYVE", "bhyve"), ("Hyper-V", "microsoft"), ("Apple Virtualization", "apple"),
        ("Google Compute Engine", "google"),
    ]
}
