// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim
import Testing
import AgentCore
@testable import AgentSystem

/// DESIGN §10, §12: the loop reads the clock once per iteration; wall-clock steps and a replaced
/// `/etc/localtime` are noticed through the real kernel (timerfd, inotify).
@Suite("Time watches", .serialized)
struct TimeWatchTests {
    @Test("one iteration's handlers all see the same three clocks; the next iteration reads them again")
    func theLoopReadsItsClocksOncePerIteration() throws {
        let loop = try EventLoop()
        let first = try TestPipe(), second = try TestPipe()
        first.write("x")
        second.write("y")
        var seen: [ClockReading] = []
        _ = try loop.watch(fd: first.readEnd, events: .readable) { _ in seen.append(loop.clock); first.drain() }
        _ = try loop.watch(fd: second.readEnd, events: .readable) { _ in seen.append(loop.clock); second.drain() }
        loop.runOnce(timeout: .seconds(10))
        #expect(seen.count == 2)
        #expect(seen.first == seen.last)
        let before = WallClock.now()
        first.write("z")
        loop.runOnce(timeout: .seconds(10))
        #expect(seen.count == 3)
        if let last = seen.last, let earlier = seen.first {
            #expect(last.monotonic > earlier.monotonic)
            #expect(last.realtime >= before)
            #expect(last.boottime >= last.monotonic.nanoseconds)
            #expect(last.suspendedTotal >= .zero)
        }
    }

    @Test("setting the wall clock (to the time it shows) is reported as a step, each time")
    func settingTheClockIsReportedAsAStep() throws {
        let loop = try EventLoop()
        var steps: [ClockStepWatch.Step] = []
        let watch = try ClockStepWatch(loop: loop) { step in
            steps.append(step)
            loop.stop()
        }
        defer { watch.close() }
        for round in 1...2 {
            let before = ClockReading.read()
            // A step of well under a microsecond: it disturbs no one, yet the kernel's
            // clock_was_set cancels every TFD_TIMER_CANCEL_ON_SET timer.
            #expect(cshim_realtime_set_to_now() == 0, "clock_settime needs CAP_SYS_TIME (run as root)")
            #expect(runLoop(loop, limit: .seconds(30)))
            #expect(steps.count == round)
            if let step = steps.last {
                #expect(step.size < .milliseconds(100) && step.size > .milliseconds(-100))
                #expect(step.clock.monotonic >= before.monotonic)
                // The handler saw the clocks re-read after the step, as the loop now holds them.
                #expect(loop.clock == step.clock)
            }
        }
    }

    @Test("a zone file renamed over its name is reported; other files in its directory are not")
    func aReplacedZoneFileIsReported() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/localtime"
        try writeTestFile(path, "TZif-old")
        let loop = try EventLoop()
        var changes = 0
        let watch = try LocalTimeWatch(loop: loop, path: path) {
            changes += 1
            loop.stop()
        }
        defer { watch.close() }
        try writeTestFile(directory.path + "/adjtime", "unrelated")
        // inotify queues the event within the syscall: the descriptor is readable now.
        loop.runOnce(timeout: .seconds(10))
        #expect(changes == 0)
        // What timedatectl set-timezone does: a new symlink renamed over the old name.
        #expect(symlink("/usr/share/zoneinfo/America/New_York", directory.path + "/.localtime.new") == 0)
        #expect(rename(directory.path + "/.localtime.new", path) == 0)
        #expect(runLoop(loop, limit: .seconds(30)))
        #expect(changes == 1)
        #expect(watch.path == path)
    }

    @Test("the watched directory and name come from the path")
    func thePathSplitsIntoDirectoryAndName() {
        #expect(LocalTimeWatch.split("/etc/localtime") == ("/etc", "localtime"))
        #expect(LocalTimeWatch.split("/localtime") == ("/", "localtime"))
        #expect(LocalTimeWatch.split("localtime") == (".", "localtime"))
    }

    @Test("the next daylight-saving transition is found to the second")
    func theNextTransitionIsFoundToTheSecond() {
        // Europe/Paris in 2026: CEST from 29 March 01:00 UTC to 25 October 01:00 UTC.
        let spring: Int64 = 1_774_746_000, fall: Int64 = 1_792_890_000
        let paris: (Int64) -> Int = { $0 >= spring && $0 < fall ? 7200 : 3600 }
        let january: Int64 = 1_767_225_600
        let winter = LocalZone.calendar(at: january, offset: paris)
        #expect(winter.utcOffsetSeconds == 3600)
        #expect(winter.nextTransition == .init(at: SchedulerTime(seconds: Double(spring)), utcOffsetSeconds: 7200))
        let summer = LocalZone.calendar(at: spring, offset: paris)
        #expect(summer.utcOffsetSeconds == 7200)
        #expect(summer.nextTransition == .init(at: SchedulerTime(seconds: Double(fall)), utcOffsetSeconds: 3600))
        let noDST = LocalZone.calendar(at: january) { _ in 19_800 }
        #expect(noDST == LocalCalendar(utcOffsetSeconds: 19_800))
    }

    @Test("the real zone's calendar agrees with localtime_r")
    func theRealZoneAgreesWithTheCLibrary() {
        let now = WallClock.now() / 1_000_000_000
        let calendar = LocalZone.calendar(at: now)
        #expect(calendar.utcOffsetSeconds == Int(cshim_utc_offset_at(now, 0)))
        if let transition = calendar.nextTransition {
            let at = Int64(transition.at.seconds)
            #expect(Int(cshim_utc_offset_at(at, 0)) == transition.utcOffsetSeconds)
            #expect(Int(cshim_utc_offset_at(at - 1, 0)) == calendar.utcOffsetSeconds)
        }
    }
}

/// A fresh directory under /tmp, removed (with the files the test put there) on deinit.
private final class TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/agentd-time-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { mkdtemp($0) != nil } ?? false
        }
        guard made else { throw SystemError(call: "mkdtemp(/tmp/agentd-time-XXXXXX)", errno: errno) }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit {
        if let entries = opendir(path) {
            while let entry = readdir(entries) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name != ".", name != ".." { unlink(path + "/" + name) }
            }
            closedir(entries)
        }
        rmdir(path)
    }
}

/// Writes `text` to a new or truncated file.
private func writeTestFile(_ path: String, _ text: String) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw SystemError(call: "open(\(path))", errno: errno) }
    defer { close(fd) }
    let bytes = Array(text.utf8)
    guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
        throw SystemError(call: "write(\(path))", errno: errno)
    }
}
