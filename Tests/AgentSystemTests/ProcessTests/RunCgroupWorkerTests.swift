// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Foundation
import Glibc
import Testing
@testable import AgentSystem
import AgentTestSupport

/// Real kernel: the worker makes the next runs' cgroups in the unified tree (and the v1 pids
/// groups of a hybrid host) while runs launch, a run's cgroup made ahead is the run's, and
/// what was made ahead goes again once launches stop.
@Suite(.serialized) struct RunCgroupWorkerTests {
    private static func name(_ number: UInt64) -> String { "run-\(RunID(number))" }

    private func worker(_ parent: String, ahead: Int = 4, idleAfter: Duration = .seconds(30)) -> RunCgroupWorker {
        RunCgroupWorker(layout: .init(unifiedParent: parent, pidsParent: nil, name: { Self.name($0) }),
                        ahead: ahead, idleAfter: idleAfter)
    }

    @Test(.enabled(if: TestRunsParent.available, TestRunsParent.reason))
    func aLaunchHasTheNextRunsCgroupsMadeOffTheLoop() throws {
        let parent = try TestRunsParent.make("ahead")
        defer { rmdir(parent) }
        let watch = try #require(InotifyWaiter.entriesComingAndGoing(parent))
        let worker = worker(parent)
        defer { worker.finish() }
        #expect(worker.take(1) == nil, "nothing is made before the first launch")
        worker.wakeAfterSpawn()
        let expected = Set((2...5).map { Self.name(UInt64($0)) })
        #expect(watch.waitUntil(seconds: 10) { Set(runDirectories(parent)) == expected })
        // Run 2's cgroup was made ahead: the run takes it and its first process joins it.
        #expect(worker.take(2) == MadeRunCgroups(unified: parent + "/" + Self.name(2)))
        worker.wakeAfterSpawn()
        let cgroup = try RunCgroup.create(parent: parent, name: Self.name(2), remover: worker)
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["30"]
        try sleeper.run()
        #expect(writeControlFile(cgroup.path + "/cgroup.procs", String(sleeper.processIdentifier)) == 0)
        #expect(try String(contentsOfFile: "/proc/\(sleeper.processIdentifier)/cgroup", encoding: .utf8)
            .contains("0::" + cgroup.path.dropFirst(CgroupHierarchy.detect()?.mountPoint.count ?? 0)))
        #expect(cgroup.isPopulated)
        // SIGKILL: the test process may have SIGTERM blocked, and a child inherits the mask.
        kill(sleeper.processIdentifier, SIGKILL)
        sleeper.waitUntilExit()
        // Empty (a process leaves its cgroup before its parent can reap it), it is removed off the loop.
        #expect(!cgroup.isPopulated)
        cgroup.remove()
        #expect(watch.waitUntil(seconds: 10) { !runDirectories(parent).contains(Self.name(2)) })
        #expect(watch.waitUntil(seconds: 10) { runDirectories(parent).contains(Self.name(6)) },
                "\(runDirectories(parent))")
    }

    @Test(.enabled(if: TestRunsParent.available, TestRunsParent.reason))
    func whatWasMadeAheadGoesOnceLaunchesStopAndAtTheStop() throws {
        let parent = try TestRunsParent.make("idle")
        defer { rmdir(parent) }
        let watch = try #require(InotifyWaiter.entriesComingAndGoing(parent))
        let worker = worker(parent, ahead: 3, idleAfter: .milliseconds(300))
        _ = worker.take(7)
        worker.wakeAfterSpawn()
        #expect(watch.waitUntil(seconds: 10) { runDirectories(parent).count == 3 })
        #expect(watch.waitUntil(seconds: 10) { runDirectories(parent).isEmpty })
        // Asleep since launches stopped: the next launch's spawn wakes it.
        _ = worker.take(20)
        worker.wakeAfterSpawn()
        #expect(watch.waitUntil(seconds: 10) { !runDirectories(parent).isEmpty })
        worker.finish()
        #expect(runDirectories(parent).isEmpty, "the stop removes what was made ahead before it returns")
        #expect(rmdir(parent) == 0)
    }

    @Test(.enabled(if: TestRunsParent.available, TestRunsParent.reason))
    func aCgroupTheLoopMadeItselfIsNotTheWorkersToRemove() throws {
        let parent = try TestRunsParent.make("taken")
        defer { rmdir(parent) }
        let watch = try #require(InotifyWaiter.entriesComingAndGoing(parent))
        // The loop launches run 3 while the worker has not made it (the first launch): its own.
        let worker = worker(parent, ahead: 2)
        let own = try RunCgroup.create(parent: parent, name: Self.name(3), remover: worker)
        _ = worker.take(3)
        worker.wakeAfterSpawn()
        #expect(watch.waitUntil(seconds: 10) { runDirectories(parent).count == 3 })
        worker.finish()
        #expect(runDirectories(parent) == [Self.name(3)], "the live run's cgroup stays")
        #expect(rmdir(own.path) == 0)
    }
}

/// The `run-…` subdirectories of `path`, sorted.
private func runDirectories(_ path: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasPrefix("run-") }.sorted()
}
