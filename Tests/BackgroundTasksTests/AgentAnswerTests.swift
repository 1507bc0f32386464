// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing
@testable import BackgroundTasks

/// What the library does with an agent whose answer it cannot use, through a real Unix socket:
/// a stand-in agent reads the library's request and answers with a canned line (or nothing).
struct AgentAnswerTests {
    @Test func anAnswerThatIsNotTheProtocolIsUnavailableAndNamesTheSocket() throws {
        let agent = try OneAnswerAgent(answer: "hello from something else\n")
        let scheduler = BGTaskScheduler(environment: [:], socketPath: { agent.path })
        #expect {
            try scheduler.submit(BGAppRefreshTaskRequest(identifier: "com.example.feed"))
        } throws: { error in
            guard let error = error as? BGTaskScheduler.Error else { return false }
            return error.code == .unavailable && error.message.contains(agent.path)
                && error.message.contains("cannot read")
        }
        #expect(agent.received().contains("\"com.example.feed\""))
    }

    @Test func anAgentThatClosesWithoutAnswerIsUnavailable() throws {
        let agent = try OneAnswerAgent(answer: nil)
        let scheduler = BGTaskScheduler(environment: [:], socketPath: { agent.path })
        #expect {
            try scheduler.submit(BGProcessingTaskRequest(identifier: "com.example.sync"))
        } throws: { error in
            guard let error = error as? BGTaskScheduler.Error else { return false }
            return error.code == .unavailable && error.message.contains("closed the connection without an answer")
        }
    }

    @Test func anAnswerOfAnotherRequestGivesNoPendingRequests() async throws {
        // A well-formed answer, but to `status`: nothing in it is a pending request.
        let agent = try OneAnswerAgent(answer: "{\"ok\":true,\"message\":\"done\"}\n")
        let scheduler = BGTaskScheduler(environment: [:], socketPath: { agent.path })
        #expect(await scheduler.pendingTaskRequests().isEmpty)
        #expect(agent.received().contains("pending"))
    }

    /// As on iOS, cancelling one identifier's request leaves those of the dynamic identifiers
    /// under it (agentd's `cancel-request` of a continued job's own identifier, unless exact,
    /// withdraws them all).
    @Test func cancellingAnIdentifierAsksForExactlyThatIdentifier() throws {
        let agent = try OneAnswerAgent(answer: "{\"ok\":true,\"message\":\"withdrew 1 submission\"}\n")
        let scheduler = BGTaskScheduler(environment: [:], socketPath: { agent.path })
        scheduler.cancel(taskRequestWithIdentifier: "com.example.export")
        let sent = try JSONSerialization.jsonObject(with: Data(agent.received().utf8)) as? [String: Any]
        #expect(sent?["command"] as? String == "cancel-request" && sent?["target"] as? String == "com.example.export"
            && sent?["exact"] as? Bool == true, "\(String(describing: sent))")
    }

    @Test func aRefusalIsThrownWithTheAgentsSentence() throws {
        let agent = try OneAnswerAgent(
            answer: "{\"ok\":false,\"error\":{\"code\":\"not-permitted\",\"message\":\"not-permitted: com.example.feed\"}}\n")
        let scheduler = BGTaskScheduler(environment: [:], socketPath: { agent.path })
        #expect {
            try scheduler.submit(BGAppRefreshTaskRequest(identifier: "com.example.feed"))
        } throws: { error in
            guard let error = error as? BGTaskScheduler.Error else { return false }
            return error.code == .notPermitted && error.message == "not-permitted: com.example.feed"
        }
    }
}

/// iOS code catches and reads the error as Swift bridges Apple's NSError: by pattern
/// (`catch BGTaskScheduler.Error.notPermitted`), by `code`, as an NSError of Apple's domain and
/// codes, and by `localizedDescription`.
struct ErrorAsOnIOSTests {
    @Test func aRefusalCanBeCaughtByItsCodeAsOnIOS() throws {
        let agent = try OneAnswerAgent(
            answer: "{\"ok\":false,\"error\":{\"code\":\"not-permitted\",\"message\":\"not-permitted: com.example.feed\"}}\n")
        let scheduler = BGTaskScheduler(environment: [:], socketPath: { agent.path })
        var caught = "nothing"
        do {
            try scheduler.submit(BGAppRefreshTaskRequest(identifier: "com.example.feed"))
        } catch BGTaskScheduler.Error.unavailable {
            caught = "unavailable"
        } catch BGTaskScheduler.Error.notPermitted {
            caught = "notPermitted"
        } catch {
            caught = "other: \(error)"
        }
        #expect(caught == "notPermitted")
    }

    @Test func theErrorIsAnNSErrorOfApplesDomainWithTheAgentsSentence() {
        let error: any Error = BGTaskScheduler.Error(.notPermitted, "not-permitted: com.example.feed; add it to a manifest")
        let bridged = error as NSError
        #expect(bridged.domain == "BGTaskSchedulerErrorDomain" && bridged.domain == BGTaskSchedulerErrorDomain)
        #expect(bridged.code == 3)
        #expect(error.localizedDescription == "not-permitted: com.example.feed; add it to a manifest")
        #expect(BGTaskScheduler.Error.immediateRunIneligible == .immediateRunIneligible)
        #expect((BGTaskScheduler.Error.Code.tooManyPendingTaskRequests ~= error) == false)
    }
}

/// A listening Unix socket that takes one connection, reads one request line, writes `answer`
/// (nil: writes nothing) and closes: a stand-in for an agent that answers wrongly.
final class OneAnswerAgent: @unchecked Sendable {
    let path: String
    private let directory: String
    private let listener: Int32
    private let lock = NSLock()
    private var request = ""
    private let done = DispatchSemaphore(value: 0)

    init(answer: String?) throws {
        (directory, path, listener) = try StandInSocket.listen(prefix: "bgtasks-answer", backlog: 1)
        let fd = listener
        Thread.detachNewThread { [self] in
            defer { done.signal() }
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while read(client, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
            lock.withLock { request = String(decoding: line, as: UTF8.self) }
            if let answer { _ = answer.utf8CString.withUnsafeBufferPointer { write(client, $0.baseAddress, $0.count - 1) } }
        }
    }

    /// The request line the library sent, once the exchange is over (within 10 s).
    func received() -> String {
        _ = done.wait(timeout: .now() + 10)
        return lock.withLock { request }
    }

    deinit {
        close(listener)
        unlink(path)
        rmdir(directory)
    }
}

/// A listening Unix socket in a directory of its own, for the stand-in agents.
enum StandInSocket {
    static func listen(prefix: String, backlog: Int32) throws -> (directory: String, path: String, listener: Int32) {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        let directory = String(cString: made)
        let path = directory + "/agentd.sock"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EIO) }
        let bound = AgentSocket.withAddress(of: path) { bind(listener, $0, $1) }
        guard bound == 0, Glibc.listen(listener, backlog) == 0 else { throw POSIXError(.EIO) }
        return (directory, path, listener)
    }
}
