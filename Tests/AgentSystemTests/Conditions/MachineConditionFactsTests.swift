// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Foundation
import Testing
@testable import AgentSystem

/// `Condition…=` facts from the machine: systemd-detect-virt's files for the virtualization, the
/// real file system for the paths (fake trees here).
@Suite struct MachineConditionFactsTests {
    final class Tree {
        let root = NSTemporaryDirectory() + "virt-\(UUID().uuidString)"
        func write(_ relative: String, _ text: String) throws {
            let path = root + "/" + relative
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try text.write(toFile: path, atomically: false, encoding: .utf8)
        }
        func detect() -> Virtualization {
            VirtualizationProbe.detect(procRoot: root + "/proc", sysfsRoot: root + "/sys", root: root)
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }
    }

    @Test func aContainerIsNamedByRunSystemdContainerOrPID1sEnvironment() throws {
        let nspawn = Tree()
        try nspawn.write("run/systemd/container", "systemd-nspawn\n")
        #expect(nspawn.detect() == Virtualization(kind: .container, name: "systemd-nspawn"))
        let lxc = Tree()
        try lxc.write("proc/1/environ", "PATH=/bin\0container=lxc\0TERM=dumb\0")
        try lxc.write("sys/class/dmi/id/sys_vendor", "QEMU\n")
        #expect(lxc.detect() == Virtualization(kind: .container, name: "lxc"), "a container inside a VM is a container")
    }

    @Test func aVMIsNamedByItsDMIVendorOrTheHypervisorFlag() throws {
        let kvm = Tree()
        try kvm.write("sys/class/dmi/id/sys_vendor", "QEMU\n")
        #expect(kvm.detect() == Virtualization(kind: .vm, name: "qemu"))
        let other = Tree()
        try other.write("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme hypervisor lm\n")
        #expect(other.detect() == Virtualization(kind: .vm, name: "vm-other"))
        let bare = Tree()
        try bare.write("sys/class/dmi/id/sys_vendor", "LENOVO\n")
        try bare.write("proc/cpuinfo", "flags\t\t: fpu vme lm\n")
        #expect(bare.detect() == .none)
    }

    @Test func pathFactsReadTheFileSystem() throws {
        let tree = Tree()
        try tree.write("dir/file", "x")
        try tree.write("empty-file", "")
        try FileManager.default.createDirectory(atPath: tree.root + "/empty-dir", withIntermediateDirectories: true)
        try tree.write("tool", "#!/bin/sh\n")
        chmod(tree.root + "/tool", 0o755)
        let facts = MachineConditionFacts(virtualization: .none, onACPower: true)
        #expect(facts.pathExists(tree.root + "/dir") && !facts.pathExists(tree.root + "/absent"))
        #expect(facts.isDirectory(tree.root + "/dir") && !facts.isDirectory(tree.root + "/dir/file"))
        #expect(facts.directoryIsNotEmpty(tree.root + "/dir") && !facts.directoryIsNotEmpty(tree.root + "/empty-dir"))
        #expect(facts.fileIsNotEmpty(tree.root + "/dir/file") && !facts.fileIsNotEmpty(tree.root + "/empty-file"))
        #expect(facts.fileIsExecutable(tree.root + "/tool") && !facts.fileIsExecutable(tree.root + "/dir/file"))
        #expect(facts.globMatches(tree.root + "/d*/f*") && !facts.globMatches(tree.root + "/x*"))
    }
}
