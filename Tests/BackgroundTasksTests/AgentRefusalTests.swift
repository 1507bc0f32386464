// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import Foundation
import Glibc
import Testing
@testable import BackgroundTasks

/// An agent that turns the app away, or never answers, costs the app an error, never the
/// process (SIGPIPE) or a thread held for ever.
struct AgentRefusalTests {
    /// agentd writes why it refuses a connection (too many from this user) and closes at once:
    /// the request then meets a closed socket.
    @Test func anAgentThatRefusesAndClosesBeforeTheRequestIsReadGivesItsRefusal() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        defer { close(pair[0]) }
        let refusal = #"{"ok":false,"error":{"code":"unavailable","message":"uid 65534 already has 16 connections to agentd"}}"#
        _ = (refusal + "\n").utf8CString.withUnsafeBufferPointer { write(pair[1], $0.baseAddress, $0.count - 1) }
        close(pair[1])
        // Without MSG_NOSIGNAL the write below would end this test process with SIGPIPE.
        let response = try AgentSocket.exchange(.submit(target: "com.example.export", SubmitRequest()),
                                                over: pair[0], path: "/run/agentd/agentd.sock", timeout: .seconds(5))
        guard case .failure(let error) = response else {
            Issue.record("not a refusal: \(response)")
            return
        }
        #expect(error.code == .unavailable)
        #expect(error.message == "uid 65534 already has 16 connections to agentd")
    }

    /// The library says what to do next, as agentctl does, when no agent answers at the path.
    @Test func noAgentAtThePathIsUnavailableWithWhatToDo() {
        let path = "/tmp/agentd-no-agent-here-\(getpid()).sock"
        do {
            _ = try AgentSocket.exchange(.status, path: path)
            Issue.record("an exchange with no agent succeeded")
        } catch let error as BGTaskScheduler.Error {
            #expect(error.code == .unavailable)
            #expect(error.localizedDescription.contains("agentd at \(path) is not reachable (No such file or directory: is it running? "
                + "systemctl --user status agentd"), "\(error.localizedDescription)")
        } catch {
            Issue.record("not a BGTaskScheduler.Error: \(error)")
        }
        let refused = AgentSocket.unreachable(path, errno: EACCES)
        #expect(refused.localizedDescription.contains("run the app as the user whose agent it is"))
    }

    @Test func anAgentThatNeverAnswersIsUnavailableAfterTheTimeout() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        defer {
            close(pair[0])
            close(pair[1])
        }
        let started = ContinuousClock.now
        #expect {
            _ = try AgentSocket.exchange(.pending(target: nil), over: pair[0], path: "/tmp/stopped/agentd.sock",
                                         timeout: .milliseconds(300))
        } throws: { error in
            guard let error = error as? BGTaskScheduler.Error else { return false }
            return error.code == .unavailable
                && error.message.hasPrefix("agentd at /tmp/stopped/agentd.sock did not answer within 0.3 seconds")
                && !error.message.contains("may still take effect")
        }
        #expect(ContinuousClock.now - started >= .milliseconds(300))
    }

    /// A stopped agent reads the submission when it runs again, after the app gave up: the
    /// error says so, so that the app looks before it submits again (and runs nothing twice).
    @Test func aSubmissionThatWasNotAnsweredMayStillTakeEffectAndTheErrorSaysSo() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        defer {
            close(pair[0])
            close(pair[1])
        }
        #expect {
            _ = try AgentSocket.exchange(.submit(target: "com.example.export", SubmitRequest()), over: pair[0],
                                         path: "/tmp/stopped/agentd.sock", timeout: .milliseconds(200))
        } throws: { error in
            guard let error = error as? BGTaskScheduler.Error else { return false }
            return error.code == .unavailable
                && error.message.hasSuffix("; the request was sent and may still take effect when agentd gets to it: "
                    + "once it answers, pendingTaskRequests() shows whether it is pending, before you submit it again")
        }
        var line = [UInt8](repeating: 0, count: 4096)
        let count = read(pair[1], &line, line.count)
        #expect(count > 0 && line[count - 1] == 0x0A, "the agent's end holds the whole request line")
    }

    @Test func theSharedSchedulersCallsWaitTenSecondsAtMost() {
        #expect(AgentSocket.answerTimeout == .seconds(10))
    }
}

/// A process agentd launched for an identifier whose handler it never registers says so and
/// ends, as iOS ends such an app, instead of holding its run until MaxRuntime=.
struct MissingHandlerTests {
    @Test func aLaunchedProcessWithoutItsHandlerIsToldWhichOneToRegister() {
        let told = Lines()
        let heard = DispatchSemaphore(value: 0)
        let scheduler = BGTaskScheduler(environment: ["AGENTD_IDENTIFIER": "com.example.feed", "AGENTD_KIND": "refresh"],
                                        handlerDeadline: .milliseconds(50), missingHandler: { identifier, registered in
                                            told.append(identifier)
                                            told.append(registered.joined(separator: " "))
                                            heard.signal()
                                        })
        // Another identifier's handler is no handler for this launch.
        #expect(scheduler.register(forTaskWithIdentifier: "com.example.other") { _ in })
        #expect(scheduler.handlerDeadlineArmed)
        #expect(heard.wait(timeout: .now() + 20) == .success)
        #expect(told.all == ["com.example.feed", "com.example.other"])
        #expect(BGTaskScheduler.missingHandlerMessage("com.example.feed").contains(
            "register(forTaskWithIdentifier: \"com.example.feed\""))
    }

    /// Not launched by agentd, or launched as a plain plugin that registers nothing (it may use
    /// the library only to submit): no deadline is armed.
    @Test func aProcessThatIsNotALaunchedAppHasNoDeadline() {
        let plain = BGTaskScheduler(environment: [:], handlerDeadline: .milliseconds(10), missingHandler: { _, _ in })
        #expect(plain.register(forTaskWithIdentifier: "com.example.other") { _ in })
        #expect(!plain.handlerDeadlineArmed)
        let plugin = BGTaskScheduler(environment: ["AGENTD_IDENTIFIER": "com.example.feed", "AGENTD_KIND": "refresh"],
                                     handlerDeadline: .milliseconds(10), missingHandler: { _, _ in })
        _ = plugin.supportedResources
        #expect(!plugin.handlerDeadlineArmed, "it registered nothing")
    }
}

struct ProgressTreeTests {
    /// A parent's `completedUnitCount` moves only when a whole child finishes; its fraction
    /// moves with the child's work.
    @Test func childProgressShowsAsPercentWhileTheParentsUnitsLag() {
        let lines = Lines()
        let output = TaskOutput(writeLine: { lines.append($0) })
        let parent = Progress(totalUnitCount: 2)
        output.follow(parent)
        let child = Progress(totalUnitCount: 20, parent: parent, pendingUnitCount: 1)
        output.sample()
        child.completedUnitCount = 15
        output.sample()
        child.completedUnitCount = 20
        output.sample()
        #expect(lines.all == ["PROGRESS=0/2", "PROGRESS=37%", "PROGRESS=1/2"])
    }

    @Test(arguments: [
        (Int64(4), Int64(10), 0.4, "PROGRESS=4/10"),
        (0, 0, 0.0, nil),
        (12, 10, 1.2, "PROGRESS=10/10"),
        (1, 3, 0.3333333333333333, "PROGRESS=1/3"),
        (1, 3, 0.3399, "PROGRESS=1/3"),
        (1, 3, 0.345, "PROGRESS=34%"),
        (0, 5, Double.nan, "PROGRESS=0/5"),
    ] as [(Int64, Int64, Double, String?)])
    func theLineIsUnitsUnlessTheFractionIsAPercentAhead(_ completed: Int64, _ total: Int64, _ fraction: Double, _ line: String?) {
        #expect(TaskOutput.line(completed: completed, total: total, fraction: fraction) == line)
    }
}

struct PendingAndDatesTests {
    @Test func aJobWaitingForItsOwnIntervalIsNoPendingRequest() {
        let schedule = PendingSummary(identifier: "com.example.feed", kind: .refresh, waitingFor: "interval (earliest 14:05)")
        #expect(BGTaskScheduler.taskRequest(from: schedule) == nil)
        let requested = PendingSummary(identifier: "com.example.feed", kind: .refresh, waitingFor: "requested",
                                       request: RunRequestOptions(earliestBegin: 1_800_000_000))
        #expect(BGTaskScheduler.taskRequest(from: requested) is BGAppRefreshTaskRequest)
    }

    @Test func aQueuedSubmissionKeepsItsTitleAndSubtitle() throws {
        let queued = PendingSummary(identifier: "com.example.export.1", kind: .continued, waitingFor: "max concurrent",
                                    title: "Export", subtitle: "3 photos")
        let request = try #require(BGTaskScheduler.taskRequest(from: queued) as? BGContinuedProcessingTaskRequest)
        #expect(request.title == "Export" && request.subtitle == "3 photos")
    }

    /// "Not before then" holds however far ahead then is: past what an instant can say, the
    /// latest one it can.
    @Test func aFarFutureEarliestBeginIsTheLatestInstantNotTheEpoch() {
        let far = BGAppRefreshTaskRequest(identifier: "com.example.feed")
        far.earliestBeginDate = Date(timeIntervalSinceNow: 1e17)
        #expect(BGTaskScheduler.controlRequest(for: far)
            == .request(target: "com.example.feed", RunRequestOptions(earliestBegin: 253_402_300_799, kind: .refresh)))
        far.earliestBeginDate = .distantFuture
        #expect(BGTaskScheduler.controlRequest(for: far)
            == .request(target: "com.example.feed", RunRequestOptions(earliestBegin: Date.distantFuture.timeIntervalSince1970, kind: .refresh)))
    }

    /// Apple's shapes: `class var supportedResources` (WWDC's
    /// `BGTaskScheduler.supportedResources.contains(.gpu)`), and the continued task a
    /// `ProgressReporting`, so code that observes any reporter takes it.
    @Test func apisShapedAsApplesCompileAndAnswerTheSame() {
        let scheduler = BGTaskScheduler(environment: [:], socketPath: { "/nonexistent/agentd.sock" })
        #expect(!scheduler.supportedResources.contains(.gpu), "no agent, no GPU")
        let type: BGContinuedProcessingTaskRequest.Resources = BGTaskScheduler.supportedResources
        #expect(type == BGTaskScheduler.shared.supportedResources)
        let task = BGContinuedProcessingTask(identifier: "com.example.export.1", title: "Export", subtitle: "",
                                             output: TaskOutput(writeLine: { _ in }))
        func observed(_ reporter: any ProgressReporting) -> Progress { reporter.progress }
        #expect(observed(task) === task.progress)
    }
}

/// Found porting: many workers of one app updating one task, titles read from files with CRLF,
/// and forty threads submitting at once.
struct ManyThreadsTests {
    @Test func titlesUpdatedFromManyThreadsAtOnceStayWhole() {
        let lines = Lines()
        let task = BGContinuedProcessingTask(identifier: "com.example.export.1", title: "Export", subtitle: "",
                                             output: TaskOutput(writeLine: { lines.append($0) }))
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for photo in 0..<200 {
                task.updateTitle("Exporting album \(worker)", subtitle: "photo \(photo) of 200")
                _ = task.title.count + task.subtitle.count
            }
        }
        #expect(lines.all.count == 8 * 200 * 2)
        #expect(task.title.hasPrefix("Exporting album "))
    }

    /// "\r\n" is one Character, neither "\r" nor "\n": filtered by scalar, it cannot start a line.
    @Test func aCRLFInATitleCannotForgeADirective() {
        let lines = Lines()
        let output = TaskOutput(writeLine: { lines.append($0) })
        output.title("Exporting Holidays\r\nRESULT=/etc/shadow", subtitle: "0 of 1\r\nCHECKPOINT=x\u{2028}y")
        #expect(lines.all == ["TITLE=Exporting Holidays  RESULT=/etc/shadow", "SUBTITLE=0 of 1  CHECKPOINT=x\u{2028}y"])
        #expect(!lines.all.joined().unicodeScalars.contains { $0 == "\n" || $0 == "\r" })
    }

    /// agentd takes 16 connections per user: one process's calls hold 4 at most, the others wait.
    /// The stand-in ends each connection itself, so its count has no lag: while it holds four,
    /// a fifth never arrives; each one it lets go lets the next waiting call in.
    @Test func oneProcessHoldsFourConnectionsAtMost() throws {
        let agent = try HoldingAgent()
        let group = DispatchGroup()
        for _ in 0..<10 {
            group.enter()
            // A thread each, as an app's workers: the global queue may not start ten at once.
            Thread.detachNewThread {
                _ = try? AgentSocket.exchange(.status, path: agent.path, timeout: .seconds(30))
                group.leave()
            }
        }
        #expect(agent.waitUntilHolding(4, within: .seconds(20)))
        // Ten without the cap: the other six would connect at once.
        #expect(!agent.waitUntilHolding(5, within: .milliseconds(300)))
        for released in 0..<10 {
            #expect(agent.waitUntilHolding(min(4, 10 - released), within: .seconds(20)))
            agent.letOneGo()
        }
        #expect(group.wait(timeout: .now() + 30) == .success)
        #expect(agent.mostAtOnce == 4)
    }

    @Test func theMissingHandlerMessageNamesThePrefixForPerSubmissionIdentifiers() {
        #expect(BGTaskScheduler.missingHandlerMessage("com.example.export.holidays")
            .hasSuffix("; for identifiers made per submission, register their prefix: \"com.example.export.*\""))
    }

    /// Launched for the job's own identifier with only `ID.*` registered: registering `ID.*`
    /// again (the per-submission advice) would not help; the message says what the prefix covers.
    @Test func aPrefixRegistrationIsNotTakenForTheIdentifierItPrefixes() {
        let message = BGTaskScheduler.missingHandlerMessage("com.example.photos.export",
                                                            registered: ["com.example.photos.export.*"])
        #expect(message.contains("within 10 s (registered: com.example.photos.export.*): call BGTaskScheduler.shared"
            + ".register(forTaskWithIdentifier: \"com.example.photos.export\""), "\(message)")
        #expect(message.hasSuffix("; \"com.example.photos.export.*\" covers only the identifiers made under it "
            + "(com.example.photos.export.NAME), not com.example.photos.export itself"), "\(message)")
        #expect(!message.contains("com.example.photos.*"), "\(message)")
    }
}

/// A listening socket that accepts every connection and holds it unanswered until the test
/// lets it go, counting how many it holds at once.
final class HoldingAgent: @unchecked Sendable {
    let path: String
    private let directory: String
    private let listener: Int32
    // The accept thread holds only this, so the agent's deinit runs and removes its directory.
    private let connections = HeldConnections()

    var mostAtOnce: Int { connections.mostAtOnce }

    init() throws {
        (directory, path, listener) = try StandInSocket.listen(prefix: "bgtasks-holding", backlog: 64)
        let fd = listener
        let connections = self.connections
        Thread.detachNewThread {
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }
                connections.hold(client)
            }
        }
    }

    func waitUntilHolding(_ count: Int, within timeout: Duration) -> Bool {
        connections.waitUntilHolding(count, within: timeout)
    }

    /// Closes the oldest held connection: its call ends without an answer and frees its slot.
    func letOneGo() { connections.letOneGo() }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        connections.closeAll()
        unlink(path)
        rmdir(directory)
    }
}

private final class HeldConnections: @unchecked Sendable {
    private let changed = NSCondition()
    private var held: [Int32] = []
    private var most = 0

    var mostAtOnce: Int { changed.withLock { most } }

    func hold(_ client: Int32) {
        changed.withLock {
            held.append(client)
            most = max(most, held.count)
            changed.broadcast()
        }
    }

    func waitUntilHolding(_ count: Int, within timeout: Duration) -> Bool {
        let deadline = Date(timeIntervalSinceNow: Double(timeout.components.seconds)
            + Double(timeout.components.attoseconds) / 1e18)
        return changed.withLock {
            while held.count < count {
                guard changed.wait(until: deadline) else { return held.count >= count }
            }
            return true
        }
    }

    func letOneGo() {
        let client: Int32? = changed.withLock { held.isEmpty ? nil : held.removeFirst() }
        if let client { close(client) }
    }

    func closeAll() {
        changed.withLock {
            held.forEach { close($0) }
            held.removeAll()
        }
    }
}
