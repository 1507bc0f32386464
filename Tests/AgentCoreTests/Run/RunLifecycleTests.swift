// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

// Each run lifecycle rule of DESIGN §5 (Completion, Expiration) and §6 (OnConditionLost=pause),
// in virtual time: `t` is the monotonic clock, `wall` the wall clock at launch.

private let t0 = Duration.seconds(1000)
private let wall = SchedulerTime(seconds: 1_800_000_000.5)
private let term = RunAction.signal(15)
private let cont = RunAction.signal(18)

/// A run driven the way the daemon drives it: events at virtual times, actions collected.
private struct Run {
    var lifecycle: RunLifecycle
    var now = t0

    init(maxRuntime: Duration? = nil, progressTimeout: Duration? = nil, grace: Duration = .seconds(5)) {
        lifecycle = RunLifecycle(settings: .init(maxRuntime: maxRuntime, progressTimeout: progressTimeout,
                                                 gracePeriod: grace))
    }

    @discardableResult
    mutating func start() -> [RunAction] { on(.started(wallClock: wall)) }

    @discardableResult
    mutating func on(_ event: RunLifecycleEvent) -> [RunAction] { lifecycle.handle(event, now: now) }

    @discardableResult
    mutating func at(_ offset: Duration, _ event: RunLifecycleEvent) -> [RunAction] {
        now = t0 + offset
        return on(event)
    }

    /// The timer at `nextDeadline` fires on time.
    @discardableResult
    mutating func timerFires() -> [RunAction] {
        guard let due = lifecycle.nextDeadline else { return [] }
        now = due
        return on(.deadlineReached)
    }

    /// The main process exits as `termination` and its processes are gone: the recorded result.
    mutating func ends(_ termination: ProcessTermination) -> [RunAction] {
        on(.mainExited(termination)) + on(.allProcessesGone)
    }
}

@Suite struct RunLifecycleTests {
    // MARK: MaxRuntime

    @Test func aRunWithoutMaxRuntimeHasNoDeadline() {
        var run = Run()
        #expect(run.start() == [])
        #expect(run.lifecycle.wallDeadline == nil)
        #expect(run.lifecycle.nextDeadline == nil)
    }

    @Test func maxRuntimeSendsSIGTERMAtItsDeadlineAndAGENTD_DEADLINEIsThatTime() {
        var run = Run(maxRuntime: .seconds(10))
        #expect(run.start() == [.setDeadline(1_800_000_010)])
        #expect(run.lifecycle.nextDeadline == t0 + .seconds(10))
        #expect(run.at(.seconds(9), .deadlineReached) == [], "a timer that fires early does nothing")
        #expect(run.at(.seconds(10), .deadlineReached) == [term, cont])
        #expect(run.lifecycle.stop == .expired(.maxRuntime))
        #expect(run.ends(.signaled(15)) == [.record(.expired(.maxRuntime))])
    }

    /// DESIGN §5: SIGTERM goes to the whole group, then the grace, then SIGKILL. A main process
    /// that exits on SIGTERM does not cut its children's grace short: they are killed when it
    /// ends, and the run ends when the last of them is gone.
    @Test func childrenKeepTheGraceWhenTheMainProcessExitsOnSIGTERM() {
        var run = Run(maxRuntime: .seconds(10), grace: .seconds(2))
        run.start()
        #expect(run.at(.seconds(10), .deadlineReached) == [term, cont])
        #expect(run.at(.milliseconds(10_100), .mainExited(.exited(0))) == [], "no SIGKILL while the grace runs")
        #expect(run.lifecycle.nextDeadline == t0 + .seconds(12))
        #expect(run.timerFires() == [.killAll])
        #expect(run.on(.allProcessesGone) == [.record(.expired(.maxRuntime))])
        // Children that finish inside the grace end the run then, with no SIGKILL.
        var early = Run(maxRuntime: .seconds(10), grace: .seconds(2))
        early.start()
        early.at(.seconds(10), .deadlineReached)
        #expect(early.at(.milliseconds(10_100), .mainExited(.exited(0))) == [])
        #expect(early.at(.milliseconds(10_600), .allProcessesGone) == [.record(.expired(.maxRuntime))])
        #expect(early.lifecycle.nextDeadline == nil)
    }

    /// Without a stop, what the main process leaves behind is killed at once (DESIGN §5).
    @Test func leftoversOfARunNobodyStoppedAreKilledWhenItsMainProcessExits() {
        var run = Run(maxRuntime: .seconds(10))
        run.start()
        #expect(run.at(.seconds(3), .mainExited(.exited(0))) == [.killAll])
        #expect(run.on(.allProcessesGone) == [.record(.success)])
    }

    @Test func aPausedRunsMaxRuntimeClockStops() {
        var run = Run(maxRuntime: .seconds(10))
        run.start()
        #expect(run.at(.seconds(4), .frozen(reason: "external power")) == [.freeze])
        #expect(run.lifecycle.pausedReason == "external power")
        #expect(run.lifecycle.nextDeadline == nil, "nothing is due while frozen")
        #expect(run.at(.seconds(50), .deadlineReached) == [], "MaxRuntime has passed in wall time, not in run time")
        #expect(run.at(.seconds(104), .thawed) == [.thaw, .setDeadline(1_800_000_110)])
        #expect(run.lifecycle.nextDeadline == t0 + .seconds(110))
        #expect(run.at(.seconds(109), .deadlineReached) == [])
        #expect(run.at(.seconds(110), .deadlineReached) == [term, cont])
    }

    @Test func aFrozenRunShowsTheReasonThatHoldsItNow() {
        var run = Run(maxRuntime: .seconds(10))
        run.start()
        run.at(.seconds(4), .frozen(reason: "battery low (15%)"))
        #expect(run.at(.seconds(6), .frozen(reason: "thermal serious")) == [], "already frozen")
        #expect(run.lifecycle.pausedReason == "thermal serious")
        #expect(run.at(.seconds(104), .thawed) == [.thaw, .setDeadline(1_800_000_110)],
                "paused from the first freeze, not the second")
    }

    /// `AGENTD_DEADLINE` is the SIGTERM time computed at spawn; a pause moves the real deadline,
    /// which status shows, but not the environment of a process already running.
    @Test func aPauseMovesTheDeadlineStatusShowsNotTheOneGivenAtSpawn() {
        var run = Run(maxRuntime: .seconds(60))
        let spawnTime = run.start()
        #expect(spawnTime == [.setDeadline(1_800_000_060)])
        run.at(.seconds(1), .frozen(reason: "network"))
        #expect(run.lifecycle.wallDeadline == 1_800_000_060, "unchanged while frozen")
        run.at(.seconds(31), .thawed)
        #expect(run.lifecycle.wallDeadline == 1_800_000_090)
        run.at(.seconds(40), .frozen(reason: "network"))
        run.at(.seconds(40.5), .thawed)
        #expect(run.lifecycle.wallDeadline == 1_800_000_091, "pauses add up: 30.5 s in all, floored")
        #expect(run.lifecycle.nextDeadline == t0 + .seconds(90.5))
    }

    @Test func aPauseShorterThanASecondMayLeaveTheWholeSecondDeadlineAsItWas() {
        var run = Run(maxRuntime: .seconds(10))
        run.start()
        run.at(.seconds(1), .frozen(reason: "power"))
        #expect(run.at(.seconds(1.2), .thawed) == [.thaw], "1_800_000_010.7 floors to the same second")
    }

    // MARK: ProgressTimeout

    @Test func aContinuedRunWithoutProgressForProgressTimeoutIsExpiredNoProgress() {
        var run = Run(progressTimeout: .seconds(30))
        #expect(run.start() == [], "a continued run has no MaxRuntime by default")
        #expect(run.lifecycle.nextDeadline == t0 + .seconds(30))
        #expect(run.timerFires() == [term, cont])
        #expect(run.lifecycle.stop == .expired(.noProgress))
        #expect(run.ends(.exited(0)) == [.record(.expired(.noProgress))])
    }

    @Test func progressLinesMoveNoDeadlineTheWindowMovesWhenItEnds() {
        var run = Run(progressTimeout: .seconds(30))
        run.start()
        for second in stride(from: 1, through: 20, by: 1) {
            #expect(run.at(.seconds(second), .progress) == [], "a line yields no action")
            #expect(run.lifecycle.nextDeadline == t0 + .seconds(30), "one deadline per window, not per line")
        }
        #expect(run.at(.seconds(30), .deadlineReached) == [])
        #expect(run.lifecycle.nextDeadline == t0 + .seconds(50), "the window the last line opened")
        #expect(run.at(.seconds(50), .deadlineReached) == [term, cont])
        #expect(run.lifecycle.stop == .expired(.noProgress))
    }

    @Test func aLateWindowCheckStillAnchorsTheGracePeriodAtTheSilencesEnd() {
        var run = Run(progressTimeout: .seconds(30), grace: .seconds(5))
        run.start()
        #expect(run.at(.seconds(36), .deadlineReached) == [term, cont, .killAll],
                "silent since t0: SIGTERM was due at 30 s, SIGKILL at 35 s")
    }

    @Test func aPausedContinuedRunsProgressClockStopsAndGoesOnFromWhereItStopped() {
        var run = Run(progressTimeout: .seconds(30))
        run.start()
        run.at(.seconds(20), .frozen(reason: "thermal"))
        #expect(run.lifecycle.nextDeadline == nil)
        run.at(.seconds(620), .thawed)
        #expect(run.lifecycle.nextDeadline == t0 + .seconds(630), "20 s of silence before the pause still count")
        run.at(.seconds(625), .progress)
        #expect(run.at(.seconds(630), .deadlineReached) == [])
        #expect(run.lifecycle.nextDeadline == t0 + .seconds(655))
    }

    @Test func aRefreshOrProcessingRunNeedsNoProgress() {
        var job = JobDefinition(identifier: id("local.a"), kind: .processing, exec: ["/bin/true"])
        job.progressTimeout = .seconds(1)
        #expect(RunLifecycle.Settings(job: job).progressTimeout == nil)
        #expect(RunLifecycle.Settings(job: job).maxRuntime == .seconds(600))
        job.kind = .continued
        job.maxRuntime = nil
        #expect(RunLifecycle.Settings(job: job) == .init(maxRuntime: nil, progressTimeout: .seconds(1),
                                                         gracePeriod: .seconds(5)))
    }

    @Test func withBothLimitsTheEarlierOneIsDue() {
        var run = Run(maxRuntime: .seconds(10), progressTimeout: .seconds(30))
        run.start()
        #expect(run.lifecycle.nextDeadline == t0 + .seconds(10))
        #expect(run.timerFires() == [term, cont])
        #expect(run.lifecycle.stop == .expired(.maxRuntime))
    }

    // MARK: teardown

    @Test func theTeardownSendsSIGTERMThenSIGCONTThenSIGKILLAfterTheGracePeriod() {
        var run = Run(grace: .seconds(5))
        run.start()
        #expect(run.at(.seconds(3), .expire(.simulated)) == [term, cont])
        #expect(run.lifecycle.nextDeadline == t0 + .seconds(8))
        #expect(run.at(.seconds(7), .deadlineReached) == [])
        #expect(run.at(.seconds(8), .deadlineReached) == [.killAll])
        #expect(run.lifecycle.nextDeadline == nil)
        #expect(run.ends(.signaled(9)) == [.record(.expired(.simulated))], "no second SIGKILL: the teardown sent it")
    }

    @Test func theGracePeriodCountsFromTheDueTimeNotFromALateTimer() {
        var run = Run(maxRuntime: .seconds(10), grace: .seconds(5))
        run.start()
        #expect(run.at(.seconds(12), .deadlineReached) == [term, cont])
        #expect(run.lifecycle.nextDeadline == t0 + .seconds(15))
        var late = Run(maxRuntime: .seconds(10), grace: .seconds(5))
        late.start()
        #expect(late.at(.seconds(16), .deadlineReached) == [term, cont, .killAll])
    }

    @Test func aGraceOfZeroKillsRightAfterSIGTERMAndSIGCONT() {
        var run = Run(grace: .zero)
        run.start()
        #expect(run.at(.seconds(1), .cancel) == [term, cont, .killAll])
        #expect(run.lifecycle.nextDeadline == nil)
    }

    @Test func aFrozenRunIsThawedBeforeItsTeardown() {
        var run = Run(maxRuntime: .seconds(10))
        run.start()
        run.at(.seconds(1), .frozen(reason: "external power"))
        #expect(run.at(.seconds(3600), .expire(.power)) == [.thaw, term, cont])
        #expect(run.lifecycle.pausedReason == nil)
        #expect(run.at(.seconds(3601), .thawed) == [], "the condition's return thaws nothing now")
    }

    @Test func aStoppingRunIsNeitherFrozenNorStoppedAgain() {
        var run = Run()
        run.start()
        run.at(.seconds(1), .expire(.battery))
        #expect(run.at(.seconds(2), .frozen(reason: "power")) == [])
        #expect(run.at(.seconds(2), .expire(.thermal)) == [])
        #expect(run.at(.seconds(2), .cancel) == [])
        #expect(run.lifecycle.nextDeadline == t0 + .seconds(6), "the first teardown's SIGKILL stays due")
    }

    /// A sleep announced while a run is already stopping: logind waits only its
    /// InhibitDelayMaxSec=, so the run's SIGKILL comes within the shorter grace the agent asks,
    /// not at the end of its own; its first stop reason stands.
    @Test func aSleepShortensTheGraceOfARunAlreadyStopping() {
        var run = Run(grace: .seconds(30))
        run.start()
        #expect(run.at(.seconds(1), .cancel) == [term, cont])
        #expect(run.lifecycle.nextDeadline == t0 + .seconds(31))
        #expect(run.at(.seconds(2), .expireWithin(.sleep, grace: .seconds(2))) == [])
        #expect(run.lifecycle.nextDeadline == t0 + .seconds(4))
        #expect(run.at(.seconds(4), .deadlineReached) == [.killAll])
        #expect(run.ends(.signaled(9)) == [.record(.cancelled)])
        // A grace already shorter than the one asked is kept; so is a SIGKILL already sent.
        var soon = Run(grace: .seconds(1))
        soon.start()
        soon.at(.seconds(1), .cancel)
        #expect(soon.at(.seconds(1), .expireWithin(.sleep, grace: .seconds(2))) == [])
        #expect(soon.lifecycle.nextDeadline == t0 + .seconds(2))
        var late = Run(grace: .seconds(30))
        late.start()
        late.at(.seconds(1), .cancel)
        #expect(late.at(.seconds(40), .expireWithin(.sleep, grace: .seconds(2))) == [.killAll], "overdue: at once")
    }

    // MARK: the result

    @Test func expiryInsideTheGracePeriodStaysExpiredEvenOnExitZero() {
        var run = Run(maxRuntime: .seconds(10))
        run.start()
        run.timerFires()
        run.now = t0 + .seconds(11)
        #expect(run.ends(.exited(0)) == [.record(.expired(.maxRuntime))])
        #expect(run.lifecycle.termination == .exited(0), "the exit status is kept beside")
    }

    @Test func theFirstStopReasonStands() {
        var run = Run()
        run.start()
        run.at(.seconds(1), .expire(.power))
        run.at(.seconds(2), .expire(.simulated))
        #expect(run.ends(.exited(1)).last == .record(.expired(.power)))
    }

    @Test func aCancelledRunIsCancelledHoweverItEnds() {
        for termination in [ProcessTermination.exited(0), .exited(2), .signaled(15), .signaled(9)] {
            var run = Run()
            run.start()
            run.at(.seconds(1), .cancel)
            #expect(run.ends(termination).last == .record(.cancelled))
        }
    }

    @Test(arguments: [
        (ProcessTermination.exited(0), StopReason.success),
        (.exited(3), .failure(exitStatus: 3)),
        (.signaled(11), .crashed(signal: 11)),
    ])
    func aRunNobodyStoppedEndsByItsMainProcesssTermination(_ termination: ProcessTermination, _ result: StopReason) {
        var run = Run(maxRuntime: .seconds(10), progressTimeout: .seconds(30))
        run.start()
        run.at(.seconds(2), .progress)
        #expect(run.at(.seconds(5), .mainExited(termination)) == [.killAll], "whatever it left is killed at once")
        #expect(run.lifecycle.nextDeadline == nil, "no MaxRuntime once the main process has gone")
        #expect(run.at(.seconds(5.1), .allProcessesGone) == [.record(result)])
    }

    @Test func theRunEndsOnlyWhenAllProcessesAreGone() {
        var run = Run()
        run.start()
        run.at(.seconds(1), .mainExited(.exited(0)))
        #expect(run.lifecycle.result == nil, "a grandchild may still live")
        #expect(!run.lifecycle.isEnded)
        #expect(run.at(.seconds(2), .allProcessesGone) == [.record(.success)])
        #expect(run.lifecycle.isEnded)
    }

    @Test func theResultWaitsForBothReportsInEitherOrder() {
        var run = Run()
        run.start()
        #expect(run.at(.seconds(1), .allProcessesGone) == [])
        #expect(run.lifecycle.nextDeadline == nil)
        #expect(run.at(.seconds(1), .mainExited(.exited(4))) == [.record(.failure(exitStatus: 4))],
                "nothing is left to kill")
    }

    @Test func anExpiryAfterTheMainProcessExitedChangesNothingItsResultStands() {
        var run = Run()
        run.start()
        run.at(.seconds(1), .mainExited(.exited(0)))
        #expect(run.at(.seconds(1), .expire(.power)) == [])
        #expect(run.at(.seconds(1), .cancel) == [])
        #expect(run.at(.seconds(2), .allProcessesGone) == [.record(.success)])
    }

    @Test func aRunLiveWhenTheAgentStopsGetsTheTeardownAndEndsAgentRestart() {
        var run = Run(grace: .seconds(5))
        run.start()
        #expect(run.at(.seconds(1), .agentStopping) == [term, cont])
        #expect(run.lifecycle.stop == .agentStopping)
        #expect(run.ends(.exited(0)).last == .record(.agentRestart))
    }

    @Test func aRunAlreadyExpiredWhenTheAgentStopsAlsoEndsAgentRestart() {
        var run = Run()
        run.start()
        run.at(.seconds(1), .expire(.maxRuntime))
        #expect(run.at(.seconds(2), .agentStopping) == [], "its teardown goes on as it was")
        #expect(run.ends(.signaled(15)).last == .record(.agentRestart))
    }

    @Test func aCancelledRunStaysCancelledWhenTheAgentStops() {
        var run = Run()
        run.start()
        run.at(.seconds(1), .cancel)
        run.at(.seconds(2), .agentStopping)
        #expect(run.ends(.signaled(15)).last == .record(.cancelled))
    }

    @Test func aRunWhoseMainProcessExitedBeforeTheAgentStoppedKeepsItsResult() {
        var run = Run()
        run.start()
        run.at(.seconds(1), .mainExited(.exited(0)))
        #expect(run.at(.seconds(2), .agentStopping) == [])
        #expect(run.at(.seconds(2), .allProcessesGone) == [.record(.success)])
    }

    @Test func aRunThatReachedAPerRunLimitEndsExpiredLimitUnlessAlreadyStopped() {
        var run = Run()
        run.start()
        run.at(.seconds(1), .mainExited(.exited(1)))
        #expect(run.at(.seconds(1), .limitReached) == [], "the kernel already acted: nothing to signal")
        #expect(run.at(.seconds(1), .allProcessesGone) == [.record(.expired(.limit))])
        var cancelled = Run()
        cancelled.start()
        cancelled.at(.seconds(1), .cancel)
        cancelled.at(.seconds(2), .limitReached)
        #expect(cancelled.ends(.signaled(9)).last == .record(.cancelled), "the first reason stands")
    }

    @Test func aLimitReachedWhileTheRunLivesIsAnExpiryWithItsTeardown() {
        var run = Run(maxRuntime: .seconds(10))
        run.start()
        #expect(run.at(.seconds(1), .limitReached) == [term, cont])
        #expect(run.lifecycle.nextDeadline == t0 + .seconds(6), "SIGKILL after the grace, not MaxRuntime")
        #expect(run.ends(.signaled(15)).last == .record(.expired(.limit)))
    }

    @Test func aPluginThatCannotStartEndsSpawnFailed() {
        var run = Run(maxRuntime: .seconds(10))
        run.start()
        #expect(run.on(.spawnFailed("no such file")) == [.record(.spawnFailed("no such file"))])
        #expect(run.lifecycle.nextDeadline == nil)
    }

    @Test func exactlyOneResultPerRun() {
        var run = Run(maxRuntime: .seconds(10), progressTimeout: .seconds(3))
        run.start()
        _ = run.ends(.exited(0))
        let every: [RunLifecycleEvent] = [
            .started(wallClock: wall), .spawnFailed("x"), .progress, .frozen(reason: "p"), .thawed, .expire(.power),
            .cancel, .agentStopping, .limitReached, .mainExited(.exited(1)), .allProcessesGone, .deadlineReached,
        ]
        for event in every { #expect(run.at(.seconds(100), event) == [], "\(event) after the result") }
        #expect(run.lifecycle.result == .success)
        #expect(run.lifecycle.nextDeadline == nil)
    }

    @Test func nothingHappensBeforeTheRunStarts() {
        var run = Run(maxRuntime: .seconds(1), progressTimeout: .seconds(1))
        for event in [RunLifecycleEvent.progress, .frozen(reason: "p"), .expire(.power), .cancel, .agentStopping,
                      .deadlineReached] {
            #expect(run.on(event) == [])
        }
        #expect(run.lifecycle.nextDeadline == nil)
    }

    // MARK: random sequences

    /// Seeded random event sequences: whatever happens, in whatever order and at whatever time,
    /// there is at most one result, exactly one once the main process exited and every process
    /// is gone; no signal follows SIGKILL; SIGCONT follows each SIGTERM at once; a frozen run is
    /// thawed before it is signalled; nothing is frozen while stopping; and every teardown ends in
    /// SIGKILL or in the processes being gone.
    @Test(arguments: [1, 2, 3, 42, 0x5eed] as [UInt64])
    func randomEventSequencesKeepEveryLifecycleRule(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for _ in 0..<400 {
            checkOneRandomRun(&random)
        }
    }
}

private func checkOneRandomRun(_ random: inout SplitMix64) {
    func pick(_ count: Int) -> Int { Int(random.next() % UInt64(count)) }
    var run = Run(maxRuntime: pick(3) == 0 ? nil : .milliseconds(100 + pick(20_000)),
                  progressTimeout: pick(2) == 0 ? nil : .milliseconds(100 + pick(5_000)),
                  grace: .milliseconds(pick(4) == 0 ? 0 : pick(10_000)))
    var log: [RunAction] = run.start()
    var frozen = false, killed = false, exited = false, gone = false
    var elapsed = Duration.zero
    for _ in 0..<(1 + pick(40)) {
        elapsed += .milliseconds(pick(3) == 0 ? 0 : pick(4_000))
        let event: RunLifecycleEvent
        switch pick(12) {
        case 0, 1: event = .progress
        case 2: event = .frozen(reason: "power")
        case 3: event = .thawed
        case 4: event = .expire(ExpiryReason.allCases[pick(ExpiryReason.allCases.count)])
        case 5: event = .cancel
        case 6: event = .agentStopping
        case 7: event = .mainExited(pick(2) == 0 ? .exited(Int32(pick(3))) : .signaled(Int32(1 + pick(15))))
        case 8: event = pick(4) == 0 ? .limitReached : .allProcessesGone
        default:
            // The timer fires at its deadline, or late.
            if let due = run.lifecycle.nextDeadline { elapsed = max(elapsed, due - t0 + .milliseconds(pick(3) * 500)) }
            event = .deadlineReached
        }
        if case .mainExited = event { exited = true }
        if case .allProcessesGone = event { gone = true }
        let actions = run.at(elapsed, event)
        for (index, action) in actions.enumerated() {
            switch action {
            case .signal(let signal):
                #expect(!killed, "no signal after SIGKILL")
                #expect(!frozen, "a frozen run is thawed before it is signalled")
                if signal == 15 { #expect(actions.dropFirst(index + 1).first == cont, "SIGCONT follows SIGTERM") }
            case .freeze:
                #expect(!killed && !run.lifecycle.isStopping, "nothing stopping is frozen")
                frozen = true
            case .thaw: frozen = false
            case .killAll: killed = true
            case .record, .setDeadline: break
            case .spawnCommand: Issue.record("a one-command run spawns no next command")
            }
            #expect(!gone || action.isRecord, "only the result once every process is gone")
        }
        log += actions
        #expect(log.filter(\.isRecord).count <= 1)
        if exited, gone { #expect(log.filter(\.isRecord).count == 1, "a result once both are known") }
    }
    // Drive the timer until nothing is due: a stopped run that still has processes is SIGKILLed.
    var timers = 0
    while let due = run.lifecycle.nextDeadline, timers < 100 {
        elapsed = max(due - t0, elapsed)
        log += run.at(elapsed, .deadlineReached)
        timers += 1
        #expect(run.lifecycle.nextDeadline.map { $0 > t0 + elapsed } ?? true, "a deadline reached is never due again")
    }
    #expect(timers < 100, "the timer stops once nothing is due")
    if run.lifecycle.isStopping, !gone, !exited { #expect(log.contains(.killAll), "every teardown ends in SIGKILL") }
    if exited, !gone { #expect(log.contains(.killAll), "leftovers of an exited main process are killed") }
    log += run.on(.mainExited(.exited(0))) + run.on(.allProcessesGone)
    #expect(log.filter(\.isRecord).count == 1)
    #expect(run.lifecycle.isEnded)
}

extension RunAction {
    fileprivate var isRecord: Bool {
        if case .record = self { return true }
        return false
    }
}
