/// The pressure inputs of the policy (DESIGN §6): memory pressure and CPU busy (for
/// `RequiresIdle=`), plus I/O pressure for `agentctl status`, each a `PressureWatch` on
/// `PROC/pressure/{memory,cpu,io}` with the documented thresholds.
public final class PressureMonitor {
    public let memory: PressureWatch
    public let cpu: PressureWatch
    public let io: PressureWatch

    /// Called on the loop thread when memory pressure turns on or off.
    public var onMemoryPressureChange: ((Bool) -> Void)? {
        get { memory.onChange }
        set { memory.onChange = newValue }
    }

    /// Called on the loop thread when the CPU turns busy or idle.
    public var onCPUBusyChange: ((Bool) -> Void)? {
        get { cpu.onChange }
        set { cpu.onChange = newValue }
    }

    public init(roots: KernelRoots = .system, loop: EventLoop, timings: PressureTimings = .standard) {
        memory = PressureWatch(resource: .memory, roots: roots, loop: loop, timings: timings)
        cpu = PressureWatch(resource: .cpu, roots: roots, loop: loop, timings: timings)
        io = PressureWatch(resource: .io, roots: roots, loop: loop, timings: timings)
    }

    /// Installs the triggers (or the fallbacks) and takes first readings. Set the callbacks first.
    public func start() {
        memory.start()
        cpu.start()
        io.start()
    }

    /// Whether memory is under pressure (`expired(pressure)`, deferrals).
    public var memoryPressure: Bool { memory.isOn }
    /// Whether the CPU is busy: `RequiresIdle=` jobs wait while it is.
    public var cpuBusy: Bool { cpu.isOn }

    /// For a sampled source: read every quiet-sample interval while work runs or is due.
    public var wantsQuietSamples: Bool {
        get { memory.wantsQuietSamples }
        set {
            memory.wantsQuietSamples = newValue
            cpu.wantsQuietSamples = newValue
            io.wantsQuietSamples = newValue
        }
    }

    /// Re-reads every file now (before a scheduling decision on a sampled source).
    public func refresh() {
        memory.refresh()
        cpu.refresh()
        io.refresh()
    }

    /// Closes the triggers and cancels the timers.
    public func stop() {
        memory.stop()
        cpu.stop()
        io.stop()
    }
}
