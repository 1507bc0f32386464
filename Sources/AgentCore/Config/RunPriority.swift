// SPDX-License-Identifier: Apache-2.0
/// A job's CPU and I/O priority (DESIGN §3), set in the child before exec: `Nice=`,
/// `IOSchedulingClass=` with `IOSchedulingPriority=`, and the run cgroup's `cpu.weight`
/// (`CPUWeight=`), which the on-battery lowering divides further.
public struct RunPriority: Hashable, Sendable {
    /// -20 (most favoured) … 19; nil = inherit the agent's (0 under systemd).
    public var nice: Int?
    public var ioClass: IOSchedulingClass?
    /// 0 (highest) … 7 within the best-effort class; nil = the kernel's default (4).
    public var ioLevel: Int?
    /// 1 … 10000 (the kernel's default is 100); nil = the default.
    public var cpuWeight: Int?

    public init(nice: Int? = nil, ioClass: IOSchedulingClass? = nil, ioLevel: Int? = nil, cpuWeight: Int? = nil) {
        self.nice = nice
        self.ioClass = ioClass
        self.ioLevel = ioLevel
        self.cpuWeight = cpuWeight
    }

    /// The kernel's ioprio value (`class << 13 | level`), or nil to leave I/O priority alone.
    /// A level alone means best-effort at that level, as ionice(1) does.
    public var ioPriorityValue: Int32? {
        let effectiveClass = ioClass ?? (ioLevel != nil ? .bestEffort : nil)
        guard let effectiveClass else { return nil }
        let level = effectiveClass == .idle ? 0 : (ioLevel ?? 4)
        return Int32(effectiveClass.kernelClass << 13 | level)
    }

    /// The cgroup weight on battery: a fifth of the job's own (at least 1), as the default 100
    /// becomes 20.
    public var loweredCPUWeight: Int { max(1, (cpuWeight ?? 100) / 5) }
    /// The nice value on battery where no cpu controller is delegated: at least 10, never more
    /// favoured than the job's own.
    public var loweredNice: Int { max(nice ?? 0, 10) }

    static let rows: [JobKey] = [
        JobKey("Nice", default: "0", doc: "the plugin's nice value, -20 to 19") { input in
            guard let assignment = input.reader.scalar("Nice") else { return }
            if let value = Int(assignment.value), (-20...19).contains(value) {
                input.definition.priority.nice = value
            } else {
                input.reader.error(assignment.line, "Nice: \(TextBytes.quoted(assignment.value)) is not a nice value "
                    + "(a whole number from -20, most favoured, to 19, least; e.g. Nice=10)")
            }
        },
        JobKey("IOSchedulingClass", default: "inherited", doc: "best-effort or idle") { input in
            guard let assignment = input.reader.scalar("IOSchedulingClass") else { return }
            if let value = IOSchedulingClass(rawValue: TextBytes.asciiLowercased(assignment.value)) {
                input.definition.priority.ioClass = value
            } else {
                input.reader.error(assignment.line, "IOSchedulingClass: \(TextBytes.quoted(assignment.value)) is not an "
                    + "I/O scheduling class (best-effort or idle; realtime is not offered to plugins)")
            }
        },
        JobKey("IOSchedulingPriority", default: "4", doc: "0 (highest) to 7 within best-effort") { input in
            guard let assignment = input.reader.scalar("IOSchedulingPriority") else { return }
            if let value = Int(assignment.value), (0...7).contains(value) {
                input.definition.priority.ioLevel = value
            } else {
                input.reader.error(assignment.line, "IOSchedulingPriority: \(TextBytes.quoted(assignment.value)) is not "
                    + "a level from 0 (highest) to 7 (lowest)")
            }
        },
        JobKey("CPUWeight", default: "100", doc: "the run cgroup's cpu.weight, 1 to 10000") { input in
            guard input.reader.scalar("CPUWeight") != nil else { return }
            input.definition.priority.cpuWeight = input.reader.integer("CPUWeight", default: 100, range: 1...10_000)
        },
    ]

    /// The kernel's default `cpu.weight`: a drop-in owned by another user than root may not go above it.
    public static let defaultCPUWeight = 100
}

/// `IOSchedulingClass=`: the kernel's I/O classes a plugin may have.
public enum IOSchedulingClass: String, Hashable, Sendable, CaseIterable {
    case bestEffort = "best-effort"
    case idle

    var kernelClass: Int { self == .idle ? 3 : 2 }
}
