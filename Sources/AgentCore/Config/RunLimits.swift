// SPDX-License-Identifier: Apache-2.0
/// A job's per-run limits (DESIGN §3): its run's cgroup gets `pids.max` (`TasksMax=`) and,
/// where the memory controller can be had, `memory.max` (`MemoryMax=`) and `memory.high`
/// (`MemoryHigh=`), so that a fork bomb or a runaway allocation stays inside its run.
public struct RunLimits: Hashable, Sendable {
    /// Processes and threads the run may have at once; nil = `infinity`.
    public var tasksMax: Int?
    /// Memory beyond which the kernel reclaims and then OOM-kills inside the run; nil = none.
    public var memoryMax: ByteSize?
    /// Memory beyond which the run is throttled and reclaimed hard (never killed); nil = none.
    public var memoryHigh: ByteSize?

    public static let defaultTasksMax = 512
    /// The kernel's ceiling for pid numbers (PID_MAX_LIMIT): more tasks than this cannot exist.
    public static let tasksCeiling = 4_194_304

    public init(tasksMax: Int? = RunLimits.defaultTasksMax, memoryMax: ByteSize? = nil,
                memoryHigh: ByteSize? = nil) {
        self.tasksMax = tasksMax
        self.memoryMax = memoryMax
        self.memoryHigh = memoryHigh
    }

    /// `TasksMax=512`, `MemoryMax=64M`: how status lines and run records name a limit.
    public var tasksMaxSetting: String { "TasksMax=" + (tasksMax.map(String.init) ?? "infinity") }
    public var memoryMaxSetting: String { "MemoryMax=" + (memoryMax?.description ?? "infinity") }

    /// Whether the run joins a memory-limited group (then its child must not share the agent's
    /// memory on its way to execve).
    public var limitsMemory: Bool { memoryMax != nil || memoryHigh != nil }

    /// Below this no program starts: the dynamic loader and libc alone map more (`/bin/true` has
    /// an RSS of about 1 MiB). `check` warns under it.
    public static let smallestUsefulMemory = ByteSize(bytes: 4 << 20)
}

extension RunLimits {
    private static let tasksValid = "a whole number from 1 to \(tasksCeiling), such as 512, a percentage of "
        + "the machine's task limit such as 10%, or infinity"
    private static let sizeValid = "\(ByteSize.examples), a percentage of physical memory such as 50%; or infinity"

    /// `TasksMax=`, `MemoryMax=`, `MemoryHigh=`; each error names what would be valid.
    static let rows: [JobKey] = [
        JobKey("TasksMax", default: "512", doc: "processes and threads a run may have at once (pids.max)") { input in
            guard let assignment = input.reader.scalar("TasksMax") else { return }
            input.definition.limits.tasksMax = tasks(assignment, &input.reader, input.facts) ?? defaultTasksMax
        },
        JobKey("MemoryMax", default: "none", doc: "the run cgroup's memory.max") { input in
            input.definition.limits.memoryMax = size("MemoryMax", &input.reader, input.facts)
        },
        JobKey("MemoryHigh", default: "none", doc: "the run cgroup's memory.high") { input in
            let high = size("MemoryHigh", &input.reader, input.facts)
            input.definition.limits.memoryHigh = high
            if let high, let max = input.definition.limits.memoryMax, high >= max,
               let line = input.reader.scalar("MemoryHigh")?.line {
                input.reader.warning(line, "MemoryHigh: \(high) is not below MemoryMax=\(max), so it never "
                    + "throttles before the OOM killer acts; lower it or remove it")
            }
        },
    ]

    /// nil after an error (the caller keeps the default), else the count; `infinity` is `.some(nil)`.
    private static func tasks(_ assignment: Assignment, _ reader: inout KeyReader,
                              _ facts: any SystemFacts) -> Int?? {
        let text = assignment.value
        if TextBytes.asciiLowercased(text) == "infinity" { return .some(nil) }
        if MachineShare.isShare(text) {
            guard let count = share(assignment, "TasksMax", of: facts.systemTasksMax().map { UInt64($0) },
                                    named: "task limit", &reader) else { return nil }
            return .some(Int(clamping: max(1, count)))
        }
        guard !text.isEmpty, text.utf8.allSatisfy(TextBytes.isDigit) else {
            reader.error(assignment.line, "TasksMax: \(TextBytes.quoted(text)) is not a number of "
                + "tasks (\(tasksValid))")
            return nil
        }
        // Digits too many for an Int are out of range, like any other count over the ceiling.
        let count = Int(text) ?? Int.max
        guard count >= 1, count <= tasksCeiling else {
            reader.error(assignment.line, "TasksMax: \(TextBytes.quoted(text)) is out of range "
                + "(\(tasksValid))")
            return nil
        }
        return .some(count)
    }

    /// A size, or nil for absent, empty, `infinity` and errors (no limit either way).
    private static func size(_ key: String, _ reader: inout KeyReader, _ facts: any SystemFacts) -> ByteSize? {
        guard let assignment = reader.scalar(key) else { return nil }
        let text = assignment.value
        if TextBytes.asciiLowercased(text) == "infinity" { return nil }
        let size: ByteSize
        if MachineShare.isShare(text) {
            guard let bytes = share(assignment, key, of: facts.physicalMemory()?.bytes, named: "physical memory",
                                    &reader) else { return nil }
            size = ByteSize(bytes: bytes / pageSize * pageSize)
        } else if let parsed = ByteSize.parse(text) {
            size = parsed
        } else {
            var hint = ""
            if let last = text.utf8.last, "kmgt".utf8.contains(last) {
                let upper = String(text.dropLast()) + String(Character(Unicode.Scalar(last - 0x20)))
                if ByteSize.parse(upper) != nil { hint = "; suffixes are upper case: \(upper)" }
            }
            reader.error(assignment.line, "\(key): \(TextBytes.quoted(text)) is not a size "
                + "(\(sizeValid))\(hint)")
            return nil
        }
        guard size.bytes > 0 else {
            reader.error(assignment.line, "\(key): must be more than 0 (\(sizeValid))")
            return nil
        }
        if size < smallestUsefulMemory {
            let bare = text.utf8.allSatisfy(TextBytes.isDigit)
            reader.warning(assignment.line, "\(key): \(TextBytes.quoted(text)) is \(size.bytes) bytes, less than "
                + "any program needs to start (\(smallestUsefulMemory)); its runs will end expired(limit) or "
                + "spawn-failed" + (bare ? "; a bare number is bytes: did you mean \(text)M?" : ""))
        }
        return size
    }

    /// systemd rounds a share of memory down to whole pages.
    private static let pageSize: UInt64 = 4096

    /// A percentage resolved against the machine, as systemd resolves it when it reads the
    /// unit; nil after an error. A share that comes to nothing is an error, as in systemd.
    private static func share(_ assignment: Assignment, _ key: String, of total: UInt64?, named whole: String,
                              _ reader: inout KeyReader) -> UInt64? {
        let text = assignment.value
        guard let share = MachineShare.parse(text), share.permyriad > 0 else {
            reader.error(assignment.line, "\(key): \(TextBytes.quoted(text)) is not a percentage from 0.01% to "
                + "100% (\(MachineShare.examples), of the machine's \(whole))")
            return nil
        }
        guard let total else {
            reader.error(assignment.line, "\(key): \(share) needs the machine's \(whole), which could not be "
                + "read here; write an absolute value")
            return nil
        }
        return share.of(total)
    }
}
