// SPDX-License-Identifier: Apache-2.0
/// The pressure inputs of the policy (DESIGN §6): memory pressure, always watched, and CPU busy
/// (for `RequiresIdle=`), watched only while ``watchesCPU`` — a trigger no rule needs would wake
/// the agent whenever the machine is busy. Each is a `PressureWatch` on
/// `PROC/pressure/{memory,cpu}` with the documented thresholds. (I/O pressure drives no rule and
/// is not watched.)
public final class PressureMonitor {
    public let memory: PressureWatch
    public let cpu: PressureWatch
    private var started = false

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
    }

    /// Installs the triggers (or the fallbacks) and takes first readings. Set the callbacks first.
    public func start() {
        started = true
        memory.start()
        if watchesCPU { cpu.start() }
    }

    /// Whether CPU pressure is watched (some job has `RequiresIdle=yes`). Turning it off closes
    /// its trigger; `cpuBusy` is then false.
    public var watchesCPU = false {
        didSet {
            guard watchesCPU != oldValue, started else { return }
            if watchesCPU {
                cpu.wantsQuietSamples = memory.wantsQuietSamples
                cpu.start()
            } else {
                cpu.stop()
            }
        }
    }

    /// Whether memory is under pressure (`expired(pressure)`, deferrals).
    public var memoryPressure: Bool { memory.isOn }
    /// Whether the CPU is busy: `RequiresIdle=` jobs wait while it is.
    public var cpuBusy: Bool { watchesCPU && cpu.isOn }

    /// For a sampled source: read every quiet-sample interval while work runs or is due.
    public var wantsQuietSamples: Bool {
        get { memory.wantsQuietSamples }
        set {
            memory.wantsQuietSamples = newValue
            if watchesCPU { cpu.wantsQuietSamples = newValue }
        }
    }

    /// Whether pressure is read by samples (no PSI trigger): then a decision reads it first.
    public var isSampled: Bool { memory.source == .sampled }

    /// Re-reads every watched file now (SIGHUP, or before a decision on a sampled source).
    public func refresh() {
        memory.refresh()
        if watchesCPU { cpu.refresh() }
    }

    /// Closes the triggers and cancels the timers.
    public func stop() {
        started = false
        memory.stop()
        cpu.stop()
    }
}
