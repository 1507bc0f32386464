// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import Foundation
import Testing
@testable import BackgroundTasks

/// The library's answers mapped to Apple's `BGTaskScheduler.Error` codes, the requests it
/// sends, and the socket it chooses (DESIGN §13).
struct ErrorMappingTests {
    @Test(arguments: [
        (ControlError.Code.notPermitted, false, BGTaskScheduler.Error.Code.notPermitted),
        (.accessDenied, false, .notPermitted),
        (.tooManyPending, false, .tooManyPendingTaskRequests),
        (.unavailable, false, .unavailable),
        (.unavailable, true, .immediateRunIneligible),
        (.notFound, false, .notPermitted),
        (.badRequest, true, .notPermitted),
        (.internal, false, .unavailable),
    ])
    func theAgentsAnswerBecomesApplesCode(_ answer: ControlError.Code, _ failFast: Bool, _ expected: BGTaskScheduler.Error.Code) {
        #expect(BGTaskScheduler.Error.code(for: answer, failFast: failFast) == expected)
    }

    @Test func anUnreachableAgentIsUnavailable() {
        let scheduler = BGTaskScheduler(environment: [:], socketPath: { "/nonexistent/agentd.sock" })
        #expect {
            try scheduler.submit(BGAppRefreshTaskRequest(identifier: "com.example.feed"))
        } throws: { ($0 as? BGTaskScheduler.Error)?.code == .unavailable }
    }
}

struct RequestShapeTests {
    @Test func aProcessingRequestCarriesItsEarliestBeginAndRequirements() {
        let request = BGProcessingTaskRequest(identifier: "com.example.sync")
        request.earliestBeginDate = Date(timeIntervalSince1970: 1_800_000_000)
        request.requiresNetworkConnectivity = true
        request.requiresExternalPower = true
        let sent = BGTaskScheduler.controlRequest(for: request)
        #expect(sent == .request(target: "com.example.sync",
                                 RunRequestOptions(earliestBegin: 1_800_000_000, requiresNetwork: .any, requiresExternalPower: true,
                                                   kind: .processing)))
    }

    /// Each says which kind it means: a job of another kind refuses it, as iOS refuses a request
    /// its app has no background mode for.
    @Test func aRefreshRequestWithoutADateAsksForAsSoonAsPolicyAllows() {
        let sent = BGTaskScheduler.controlRequest(for: BGAppRefreshTaskRequest(identifier: "com.example.feed"))
        #expect(sent == .request(target: "com.example.feed", RunRequestOptions(kind: .refresh)))
    }

    @Test func aContinuedRequestIsASubmissionWithItsTitleAndStrategy() {
        let request = BGContinuedProcessingTaskRequest(identifier: "com.example.export.1", title: "Export", subtitle: "3 photos")
        request.strategy = .fail
        let sent = BGTaskScheduler.controlRequest(for: request)
        #expect(sent == .submit(target: "com.example.export.1", SubmitRequest(title: "Export", subtitle: "3 photos", strategy: .fail)))
    }

    @Test func aPendingEntryBecomesTheRequestOfItsKind() throws {
        let entry = PendingSummary(identifier: "com.example.sync", kind: .processing, waitingFor: "external power",
                                   request: RunRequestOptions(earliestBegin: 1_800_000_000, requiresExternalPower: true))
        let request = try #require(BGTaskScheduler.taskRequest(from: entry) as? BGProcessingTaskRequest)
        #expect(request.requiresExternalPower)
        #expect(!request.requiresNetworkConnectivity)
        #expect(request.earliestBeginDate == Date(timeIntervalSince1970: 1_800_000_000))
    }
}

struct RegistrationTests {
    @Test func notLaunchedByAgentdRegisterOnlyRecordsTheHandler() {
        let scheduler = BGTaskScheduler(environment: [:])
        #expect(scheduler.register(forTaskWithIdentifier: "com.example.feed") { _ in Issue.record("not launched") })
        #expect(!scheduler.register(forTaskWithIdentifier: "com.example.feed") { _ in }, "one handler per identifier")
    }

    /// iOS answers false for an identifier its Info.plist does not list; no manifest can list
    /// what is no identifier.
    @Test func whatIsNoIdentifierIsNotRegistered() {
        let scheduler = BGTaskScheduler(environment: [:])
        for bad in ["", "bad..id", "with space", ".lead", "trail.", "*", "a.*.b"] {
            #expect(!scheduler.register(forTaskWithIdentifier: bad) { _ in }, "\(bad)")
        }
        #expect(scheduler.register(forTaskWithIdentifier: "com.example.export.*") { _ in })
    }

    @Test func aWildcardRegistrationHandlesItsDynamicIdentifiers() {
        #expect(BGTaskScheduler.matches("com.example.export.*", "com.example.export.7f3a"))
        #expect(!BGTaskScheduler.matches("com.example.export.*", "com.example.exporter"))
        #expect(BGTaskScheduler.matches("com.example.feed", "com.example.feed"))
    }

    @Test func theSocketIsAgentdSocketThenTheUsersThenTheSystems() {
        #expect(AgentSocket.path(environment: ["AGENTD_SOCKET": "/tmp/a.sock"], exists: { _ in true }) == "/tmp/a.sock")
        #expect(AgentSocket.path(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], exists: { _ in true })
            == "/run/user/1000/agentd.sock")
        #expect(AgentSocket.path(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], exists: { _ in false })
            == "/run/agentd/agentd.sock")
    }
}

/// An expiration handler racing the work's end calls `setTaskCompleted` from two threads at
/// once: the first call decides, and the second never ends the process a second time (`exit`
/// from two threads is undefined: a run meant to succeed ended with exit 1 in 63 of 300 tries).
struct CompletionTests {
    @Test func theFirstCompletionDecidesAndALaterOneWaitsForTheProcessToEnd() {
        for _ in 0..<50 {
            let heard = Lines()
            let told = DispatchSemaphore(value: 0)
            let task = BGAppRefreshTask(identifier: "com.example.feed", output: TaskOutput(writeLine: { _ in }))
            // Each caller's thread ends where the process would have.
            task.ending = BGTask.Ending(end: { status in heard.append("end \(status)"); told.signal(); pthread_exit(nil) },
                                        park: { heard.append("park"); told.signal(); pthread_exit(nil) })
            let go = DispatchSemaphore(value: 0)
            for success in [true, false] {
                Thread.detachNewThread { go.wait(); task.setTaskCompleted(success: success) }
            }
            go.signal()
            go.signal()
            #expect(told.wait(timeout: .now() + 10) == .success && told.wait(timeout: .now() + 10) == .success)
            #expect(heard.all.filter { $0.hasPrefix("end ") }.count == 1 && heard.all.contains("park"), "\(heard.all)")
        }
    }
}

struct TaskOutputTests {
    @Test func progressBecomesOneLinePerChangeAndTitlesStayOnOneLine() {
        let lines = Lines()
        let output = TaskOutput(writeLine: { lines.append($0) })
        let progress = Progress(totalUnitCount: 10)
        output.follow(progress)
        progress.completedUnitCount = 4
        output.sample()
        output.sample()
        progress.completedUnitCount = 12
        output.finish()
        output.title("Exporting\nphotos", subtitle: "4 of 10")
        #expect(lines.all == ["PROGRESS=4/10", "PROGRESS=10/10", "TITLE=Exporting photos", "SUBTITLE=4 of 10"])
    }
}

/// Lines written, in order, from any thread.
final class Lines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

/// The agent signals a run's process, its process group and its cgroup: each SIGTERM may reach
/// the task apart, and the expiration handler is called for the first only, then is nil, as iOS
/// sets it to nil once called (helper-42: a handler called twice left a DispatchGroup twice).
struct ExpirationOnceTests {
    @Test func theExpirationHandlerIsCalledOnceHoweverManySIGTERMsArrive() {
        let task = BGProcessingTask(identifier: "com.example.sync", output: TaskOutput(writeLine: { _ in }))
        let calls = Lines()
        task.expirationHandler = { calls.append("expired") }
        task.expire()
        task.expire()
        task.expire()
        #expect(calls.all == ["expired"])
        #expect(task.expirationHandler == nil)
        #expect(!task.isCompleted, "a later SIGTERM does not end the task as failed either")
    }
}
