// SPDX-License-Identifier: Apache-2.0
import Glibc
/// A fake `/proc` with `pressure/{cpu,memory,io}` under a temporary directory
/// (`agentd --proc-root tree.procRoot`). Removed with everything in it when the value goes away.
///
/// The files are regular files, so a PSI trigger cannot be installed on them: readers fall back
/// to sampling, which is what tests of the fallback need.
public final class FakeProcTree {
    /// The temporary directory holding `proc/`.
    public let base: String
    /// The fake `/proc`.
    public let procRoot: String

    /// Creates all three files with zero pressure; `cpuFullLine: false` leaves out cpu's `full`
    /// line as kernels before 5.13 do.
    public init(cpuFullLine: Bool = true) throws {
        base = try FakeTreeFiles.makeTemporaryDirectory(tag: "proc")
        procRoot = base + "/proc"
        try FakeTreeFiles.makeDirectories(procRoot + "/pressure")
        try setPressure("memory", someAvg10: 0)
        try setPressure("io", someAvg10: 0)
        try setPressure("cpu", someAvg10: 0, fullAvg10: cpuFullLine ? 0 : nil)
    }

    deinit {
        FakeTreeFiles.removeTree(base)
    }

    /// A `/proc` for an agent whose test is not about memory or CPU pressure: no PSI files (the
    /// agent then has no pressure input, and no sampling timer), and this boot's real boot id,
    /// so restart recovery sees the boot it runs in. The host's own pressure (other work on a
    /// loaded machine) then cannot hold or shed the test's runs.
    public static func withoutPressure() throws -> FakeProcTree {
        let tree = try FakeProcTree()
        for resource in ["memory", "io", "cpu"] { try tree.removePressure(resource) }
        let source = "/proc/sys/kernel/random/boot_id"
        let fd = open(source, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FakeTreeError("open", source) }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(fd, &bytes, bytes.count)
        guard count > 0 else { throw FakeTreeError("read", source) }
        try FakeTreeFiles.write(tree.procRoot + "/sys/kernel/random/boot_id", String(decoding: bytes[0..<count], as: UTF8.self))
        return tree
    }

    /// `proc/pressure/RESOURCE`.
    public func pressurePath(_ resource: String) -> String { procRoot + "/pressure/" + resource }

    /// Rewrites `pressure/RESOURCE` with `some avg10=…` (avg60/avg300 derived from it, total
    /// `someTotal`) and a `full` line unless `fullAvg10` is nil.
    @discardableResult
    public func setPressure(_ resource: String, someAvg10: Double, fullAvg10: Double? = 0,
                            someTotal: UInt64 = 0) throws -> Self
    {
        func line(_ head: String, _ avg10: Double, _ total: UInt64) -> String {
            "\(head) avg10=\(FakeTreeFiles.percent(avg10)) avg60=\(FakeTreeFiles.percent(avg10 / 2)) "
                + "avg300=\(FakeTreeFiles.percent(avg10 / 10)) total=\(total)\n"
        }
        var text = line("some", someAvg10, someTotal)
        if let fullAvg10 { text += line("full", fullAvg10, someTotal / 2) }
        return try setPressureText(resource, text)
    }

    /// Writes `text` verbatim to `pressure/RESOURCE`.
    @discardableResult
    public func setPressureText(_ resource: String, _ text: String) throws -> Self {
        try FakeTreeFiles.write(pressurePath(resource), text)
        return self
    }

    /// Removes `pressure/RESOURCE` (a kernel without PSI has no such files).
    @discardableResult
    public func removePressure(_ resource: String) throws -> Self {
        try FakeTreeFiles.remove(pressurePath(resource))
        return self
    }
}
