// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentTestSupport
import Glibc
import Synchronization
import Testing
@testable import AgentSystem

/// Fast timings for the sampled path: the tests wait on the loop with a deadline, never sleep.
private let fast = PressureTimings(recheck: .milliseconds(20), quietSample: .milliseconds(20))

private func fakeRoots(_ proc: FakeProcTree) -> KernelRoots {
    KernelRoots(sysfs: "/nonexistent-sysfs", proc: proc.procRoot)
}

@Suite("PSI pressure watch")
struct PressureWatchTests {
    @Test func aFakeProcRootFallsBackToSamplingAndIsNeverWrittenTo() throws {
        let proc = try FakeProcTree()
        let loop = try EventLoop()
        let watch = PressureWatch(resource: .memory, roots: fakeRoots(proc), loop: loop, timings: fast)
        watch.start()
        #expect(watch.source == .sampled)
        #expect(watch.sourceDetail.contains("not on procfs"))
        #expect(!watch.isOn)
        #expect(watch.lastReading?.some.avg10 == 0)
        // No trigger text landed in the fake file.
        #expect(SmallFile.read(proc.pressurePath("memory"))?.hasPrefix("some avg10=0.00") == true)
        // Quiet and nobody asked for samples: no timer at all.
        #expect(!watch.hasPendingTimer)
        #expect(loop.timerCount == 0)
    }

    @Test func sampledPressureTurnsOnAndOffAndStopsTheTimerWhenQuiet() throws {
        let proc = try FakeProcTree()
        let loop = try EventLoop()
        let watch = PressureWatch(resource: .memory, roots: fakeRoots(proc), loop: loop, timings: fast)
        var changes: [Bool] = []
        watch.onChange = { on in
            changes.append(on)
            loop.stop()
        }
        watch.start()
        watch.wantsQuietSamples = true
        #expect(watch.hasPendingTimer)

        try proc.setPressure("memory", someAvg10: 35)
        #expect(runLoop(loop, limit: .seconds(10)))
        #expect(changes == [true])
        #expect(watch.isOn)

        // Still above the off-threshold (5 %) though below the on-threshold: stays on.
        try proc.setPressure("memory", someAvg10: 7)
        watch.refresh()
        #expect(watch.isOn)

        watch.wantsQuietSamples = false
        try proc.setPressure("memory", someAvg10: 1.5)
        // The recheck timer runs while pressure is on, even without quiet samples.
        #expect(watch.hasPendingTimer)
        #expect(runLoop(loop, limit: .seconds(10)))
        #expect(changes == [true, false])
        #expect(!watch.hasPendingTimer)
        #expect(loop.timerCount == 0)
    }

    @Test func pressureAlreadyOnAtStartIsReportedAtOnce() throws {
        let proc = try FakeProcTree()
        try proc.setPressure("cpu", someAvg10: 80)
        let loop = try EventLoop()
        let watch = PressureWatch(resource: .cpu, roots: fakeRoots(proc), loop: loop, timings: fast)
        var changes: [Bool] = []
        watch.onChange = { changes.append($0) }
        watch.start()
        #expect(changes == [true])
        #expect(watch.hasPendingTimer)
        watch.stop()
        #expect(loop.timerCount == 0)
    }

    @Test func cpuWithoutAFullLineIsRead() throws {
        let proc = try FakeProcTree(cpuFullLine: false)
        let loop = try EventLoop()
        let watch = PressureWatch(resource: .cpu, roots: fakeRoots(proc), loop: loop, timings: fast)
        watch.start()
        #expect(watch.source == .sampled)
        #expect(watch.lastReading?.full == nil)
    }

    @Test func aMissingFileIsUnavailableAndNeverSampled() throws {
        let proc = try FakeProcTree()
        try proc.removePressure("io")
        let loop = try EventLoop()
        let watch = PressureWatch(resource: .io, roots: fakeRoots(proc), loop: loop, timings: fast)
        watch.start()
        watch.wantsQuietSamples = true
        #expect(watch.source == .unavailable)
        #expect(watch.sourceDetail.contains("no "))
        watch.refresh()
        #expect(!watch.isOn)
        #expect(loop.timerCount == 0)
    }

    @Test func anUnparseableFileIsUnavailable() throws {
        let proc = try FakeProcTree()
        try proc.setPressureText("memory", "garbage\n")
        let loop = try EventLoop()
        let watch = PressureWatch(resource: .memory, roots: fakeRoots(proc), loop: loop, timings: fast)
        watch.start()
        #expect(watch.source == .unavailable)
    }

    @Test func theMonitorExposesMemoryPressureAndCPUBusy() throws {
        let proc = try FakeProcTree()
        try proc.setPressure("memory", someAvg10: 50)
        let loop = try EventLoop()
        let monitor = PressureMonitor(roots: fakeRoots(proc), loop: loop, timings: fast)
        var memoryChanges: [Bool] = []
        var cpuChanges: [Bool] = []
        monitor.onMemoryPressureChange = { memoryChanges.append($0) }
        monitor.onCPUBusyChange = { cpuChanges.append($0) }
        monitor.watchesCPU = true  // as when a job has RequiresIdle=yes
        monitor.start()
        #expect(monitor.memoryPressure)
        #expect(!monitor.cpuBusy)
        try proc.setPressure("cpu", someAvg10: 45)
        monitor.refresh()
        #expect(monitor.cpuBusy)
        #expect(memoryChanges == [true])
        #expect(cpuChanges == [true])
        #expect(monitor.memory.source == .sampled && monitor.cpu.source == .sampled)
        monitor.stop()
        #expect(loop.timerCount == 0)
    }

    @Test func cpuPressureIsWatchedOnlyWhileAJobNeedsIdleAndCanBeWatchedAgain() throws {
        let proc = try FakeProcTree()
        try proc.setPressure("cpu", someAvg10: 45)
        let loop = try EventLoop()
        let monitor = PressureMonitor(roots: fakeRoots(proc), loop: loop, timings: fast)
        monitor.start()
        #expect(!monitor.cpuBusy)
        monitor.watchesCPU = true
        #expect(monitor.cpuBusy)
        monitor.watchesCPU = false
        #expect(!monitor.cpuBusy)
        monitor.watchesCPU = true  // a stopped watch starts again
        #expect(monitor.cpuBusy && monitor.cpu.source == .sampled)
        monitor.stop()
        #expect(loop.timerCount == 0)
    }

    @Test func theDocumentedThresholdsWriteValidTriggers() {
        #expect(PressureThresholds.memory.triggerText == "some 200000 2000000")
        #expect(PressureThresholds.cpu.triggerText == "some 400000 2000000")
        for resource in PressureResource.allCases {
            let thresholds = PressureThresholds.standard(for: resource)
            #expect(thresholds.windowMicroseconds % 2_000_000 == 0, "unprivileged triggers need 2 s multiples")
            #expect(thresholds.offAvg10 < thresholds.onAvg10)
        }
    }
}

@Suite("PSI triggers on the real kernel")
struct RealPressureTriggerTests {
    @Test func aMemoryTriggerIsInstalledAndNothingRunsWhileQuiet() throws {
        let loop = try EventLoop()
        let watch = PressureWatch(resource: .memory, roots: .system, loop: loop)
        watch.start()
        guard watch.source == .trigger else {
            try Test.cancel("the kernel refused a PSI trigger on /proc/pressure/memory: \(watch.sourceDetail)")
        }
        #expect(loop.watchCount == 1)
        if !watch.isOn {
            #expect(!watch.hasPendingTimer)
            #expect(loop.timerCount == 0)
            // The trigger descriptor is always readable and writable for poll; only EPOLLPRI is
            // asked for, so a quiet loop really sleeps: three waits take their full timeout.
            let before = MonotonicInstant.now()
            for _ in 0..<3 { loop.runOnce(timeout: .milliseconds(40)) }
            #expect(MonotonicInstant.now() - before >= .milliseconds(110) || watch.isOn)
        }
        watch.stop()
        #expect(loop.watchCount == 0)
    }

    @Test func aCPUTriggerFiresUnderContention() throws {
        let loop = try EventLoop()
        // Low stall threshold; never on or off by sampling, so only the trigger can report it.
        let thresholds = PressureThresholds(stallMicroseconds: 20_000, windowMicroseconds: 2_000_000,
                                            onAvg10: 1_000, offAvg10: -1)
        let watch = PressureWatch(resource: .cpu, roots: .system, loop: loop, thresholds: thresholds)
        var fired = false
        watch.onChange = { on in
            fired = on
            loop.stop()
        }
        watch.start()
        guard watch.source == .trigger else {
            try Test.cancel("the kernel refused a PSI trigger on /proc/pressure/cpu: \(watch.sourceDetail)")
        }
        // More runnable threads than CPUs: some task always waits for a CPU.
        let spinning = Atomic<Bool>(true)
        let count = max(2, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) + 1
        let spinners = (0..<count).map { _ in
            TestThread {
                while spinning.load(ordering: .relaxed) {}
            }
        }
        let finished = runLoop(loop, limit: .seconds(20))
        spinning.store(false, ordering: .relaxed)
        spinners.forEach { $0.join() }
        #expect(finished, "no PSI trigger event within 20 s of CPU contention")
        #expect(fired)
        #expect(watch.isOn)
        // On after a trigger: the recheck timer watches for the end.
        #expect(watch.hasPendingTimer)
        watch.stop()
    }
}

/// The trigger path's rule that pressure counts only once it lasts, in virtual time: the trigger
/// is the real kernel's (installed on `/proc`), its events are the test's (`makeReady`), and the
/// averages can never turn pressure on or keep it on, so only the triggers decide.
@Suite("PSI triggers: pressure that lasts")
struct PressureConfirmationTests {
    private let triggersOnly = PressureThresholds(stallMicroseconds: 200_000, windowMicroseconds: 2_000_000,
                                                  onAvg10: 1_000, offAvg10: 1_000)

    /// What the watch reported, in order.
    private final class Changes {
        var seen: [Bool] = []
    }

    /// A watch on the real trigger, on a virtual loop, its trigger's descriptor and its reports.
    private func triggerWatch() throws -> (VirtualEventLoop, PressureWatch, fd: Int32, Changes) {
        let loop = VirtualEventLoop()
        let watch = PressureWatch(resource: .memory, roots: .system, loop: loop, thresholds: triggersOnly)
        let changes = Changes()
        watch.onChange = { changes.seen.append($0) }
        watch.start()
        guard watch.source == .trigger, let fd = loop.watchedDescriptors.first else {
            try Test.cancel("the kernel refused a PSI trigger on /proc/pressure/memory: \(watch.sourceDetail)")
        }
        return (loop, watch, fd, changes)
    }

    @Test func aLoneTriggerIsABlipThatChangesNothing() throws {
        let (loop, watch, fd, changes) = try triggerWatch()
        defer { watch.stop() }
        loop.makeReady(fd: fd, [.priority])
        #expect(!watch.isOn)
        loop.advance(by: .seconds(10))
        #expect(changes.seen.isEmpty)
        #expect(!watch.hasPendingTimer, "a quiet trigger source keeps no timer once the blip is over")
    }

    @Test func aSecondTriggerWithinTheConfirmationTimeTurnsPressureOn() throws {
        let (loop, watch, fd, changes) = try triggerWatch()
        defer { watch.stop() }
        loop.makeReady(fd: fd, [.priority])
        loop.advance(by: .seconds(2))
        loop.makeReady(fd: fd, [.priority])
        #expect(changes.seen == [true])
        // Sustained: the kernel fires every window, and the rechecks keep it on.
        for _ in 0..<3 {
            loop.advance(by: .seconds(2))
            loop.makeReady(fd: fd, [.priority])
        }
        #expect(changes.seen == [true])
        // The triggers stop: off at the second recheck without one (the first still saw one).
        loop.advance(by: .seconds(5))
        #expect(changes.seen == [true, false])
        #expect(!watch.hasPendingTimer)
    }

    @Test func triggersFurtherApartThanTheConfirmationTimeAreEachABlip() throws {
        let (loop, watch, fd, changes) = try triggerWatch()
        defer { watch.stop() }
        for _ in 0..<4 {
            loop.makeReady(fd: fd, [.priority])
            loop.advance(by: .seconds(4))
        }
        #expect(changes.seen.isEmpty)
    }
}
