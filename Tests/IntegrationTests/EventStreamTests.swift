// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// The event stream on a real agent's control socket (DESIGN §9, issue 14): every run's events
/// in order with its end last, sequence numbers that only grow, filters, a subscriber that never
/// reads dropped with one `overflow` event and no memory kept for it, and 100 subscribers at once.
@Suite(.serialized) struct EventStreamTests {
    /// `2026-12-01T08:00:00.123Z`.
    private static func isInstant(_ text: String?) -> Bool {
        guard let text else { return false }
        return text.wholeMatch(of: #/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/#) != nil
    }

    private func continuedJob(_ sandbox: Sandbox, _ name: String, _ body: String, extra: String = "") throws {
        let path = try sandbox.script(name, body)
        try sandbox.write("jobs.d/\(name).job", "[Job]\nIdentifier=local.\(name)\nKind=continued\nExec=\(path)\n\(extra)")
    }

    @Test func everyRunsEventsArriveInOrderWithTheEndLastAndSequenceNumbersGrowing() throws {
        let sandbox = try Sandbox()
        try continuedJob(sandbox, "steps", """
            echo TITLE=Steps
            echo SUBTITLE=counting
            for i in 1 2 3 4 5 6 7 8 9 10; do echo PROGRESS=$i/10; done
            echo STATUS=done counting
            """)
        let agent = try AgentProcess(sandbox: sandbox)
        let subscriber = try EventSubscriber(socket: sandbox.socketPath)
        let runs = 6
        for n in 1...runs { #expect(try agent.ctl("submit", "local.steps.n\(n)").status == 0) }
        var ended = 0
        let events = try subscriber.events(until: { event in
            if event.type == "run-ended" { ended += 1 }
            return ended == runs
        })
        let sequences = events.compactMap(\.sequence)
        #expect(sequences.count == events.count)
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $0 < $1 }, "sequence numbers increase")
        #expect((sequences.first ?? 0) > Int(subscriber.after))
        #expect(events.allSatisfy { Self.isInstant($0["time"] as? String) }, "RFC 3339 UTC with milliseconds")
        for n in 1...runs {
            let mine = events.filter { $0.identifier == "local.steps.n\(n)" }
            let kinds = mine.compactMap(\.type)
            #expect(kinds.first == "run-started", "local.steps.n\(n): \(kinds)")
            #expect(kinds.last == "run-ended")
            // Progress is published once per read of the plugin's output, with the last value.
            #expect((1...10).contains(kinds.filter { $0 == "run-progress" }.count), "\(kinds)")
            #expect(kinds.contains("run-title") && kinds.contains("run-subtitle") && kinds.contains("run-status"))
            let progress = mine.compactMap { $0["progress"] as? Double }
            #expect(progress == progress.sorted() && Set(progress).count == progress.count && progress.last == 1)
            let title = try #require(kinds.firstIndex(of: "run-title"))
            let status = try #require(kinds.firstIndex(of: "run-status"))
            #expect(kinds[title + 1] == "run-subtitle", "in the order the plugin wrote them")
            #expect(kinds[status - 1] == "run-progress", "the last progress comes before the status after it")
            #expect(Set(mine.compactMap(\.runID)).count == 1, "one run")
            #expect(mine.first?["requestID"] != nil && mine.first?["reason"] as? String == "submitted")
            #expect(mine.last?["stopReason"] as? String == "success")
            #expect(mine.first { $0.type == "run-status" }?["status"] as? String == "done counting")
        }
    }

    @Test func filtersPassOnlyTheNamedIdentifiersAndKinds() throws {
        let sandbox = try Sandbox()
        try continuedJob(sandbox, "alpha", "echo PROGRESS=50%\n")
        try continuedJob(sandbox, "beta", "echo PROGRESS=50%\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let alphaOnly = try EventSubscriber(socket: sandbox.socketPath, filter: ["identifiers": ["local.alpha.*"]])
        let endsOnly = try EventSubscriber(socket: sandbox.socketPath, filter: ["kinds": ["run-ended"]])
        #expect(throws: EventSubscriber.SubscribeRefused.self) {
            _ = try EventSubscriber(socket: sandbox.socketPath, filter: ["kinds": ["run-exploded"]])
        }
        #expect(try agent.ctl("submit", "local.beta").status == 0)
        #expect(try agent.ctl("submit", "local.alpha.one").status == 0)
        // Agent-wide events (conditions, stopping) name no identifier and pass any identifier filter.
        let alpha = try alphaOnly.events(until: { $0.type == "run-ended" }).filter { $0.identifier != nil }
        #expect(alpha.allSatisfy { $0.identifier == "local.alpha.one" }, "\(alpha)")
        #expect(alpha.compactMap(\.type) == ["run-started", "run-progress", "run-ended"])
        var count = 0
        let ends = try endsOnly.events(until: { _ in count += 1; return count == 2 })
        #expect(ends.allSatisfy { $0.type == "run-ended" }, "\(ends)")
        #expect(Set(ends.compactMap(\.identifier)) == ["local.beta", "local.alpha.one"])
    }

    /// `printf '{"command":"subscribe"}\n' | nc -U agentd.sock`: the client's half-close is not
    /// its going away; the stream goes on until it closes the connection.
    @Test func aSubscriberThatHalfClosesStillGetsItsEvents() throws {
        let sandbox = try Sandbox()
        try continuedJob(sandbox, "alpha", "echo PROGRESS=50%\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let subscriber = try EventSubscriber(socket: sandbox.socketPath, filter: ["kinds": ["run-started", "run-ended"]])
        #expect(shutdown(subscriber.client.fileDescriptor, Int32(SHUT_WR)) == 0)
        #expect(try agent.ctl("submit", "local.alpha").status == 0)
        let events = try subscriber.events(until: { $0.type == "run-ended" })
        #expect(events.compactMap(\.type) == ["run-started", "run-ended"])
        #expect(try agent.ctl("status").status == 0)
    }

    /// A job that runs only when asked: registering thousands starts nothing.
    static func requestOnlyJob(_ name: String, _ sandbox: Sandbox) -> String {
        "[Job]\nIdentifier=local.\(name)\nKind=processing\nExec=\(sandbox.pluginPath)\n"
    }

    @Test func aSubscriberThatNeverReadsIsDroppedWithOneOverflowEventAndCostsNoMemory() throws {
        let sandbox = try Sandbox()
        let agent = try AgentProcess(sandbox: sandbox)
        let pid = agent.process.processIdentifier
        try continuedJob(sandbox, "warm", "echo PROGRESS=1/1\n")
        try agent.waitForLog("registered local.warm")
        #expect(try agent.ctl("submit", "local.warm", "--wait").status == 0)
        let base = try #require(SocketAbuseTests.residentKiB(of: pid))
        var resident: [Int] = []
        for round in 1...2 {
            let stalled = try EventSubscriber(socket: sandbox.socketPath)
            // 2,000 registrations, an event each (a plugin's output is merged per read, config
            // changes are not): far more than a subscriber may fall behind by.
            // Long identifiers (200 bytes) make each event about 300 bytes: 600 kB in all, twice
            // what the socket and the backlog hold.
            let padding = String(repeating: "x", count: 180)
            for index in 0..<2_000 {
                try sandbox.write("jobs.d/bulk\(round)-\(index).job",
                                  Self.requestOnlyJob("bulk\(round).\(padding).n\(index)", sandbox))
            }
            try sandbox.write("jobs.d/marker\(round).job", Self.requestOnlyJob("marker\(round)", sandbox))
            // What the stalled subscriber gets when it reads at last (within the idle timeout of
            // its overflow, after which even the overflow line is dropped): what was sent before it
            // fell behind, one overflow event, and the end of the connection.
            var last: [String: Any]?
            var overflows = 0
            var lines = 0
            while let event = try stalled.next(timeout: 20) {
                lines += 1
                if event.type == "overflow" { overflows += 1 }
                last = event
            }
            // The agent went on without waiting for the stalled one.
            try agent.waitForLog("registered local.marker\(round)", timeout: 120)
            resident.append(try #require(SocketAbuseTests.residentKiB(of: pid)))
            #expect(overflows == 1, "\(lines) lines; \(agent.logLines.filter { $0.contains("client") || $0.contains("subscri") }.suffix(5))")
            #expect(last?.type == "overflow")
            #expect((last?["message"] as? String)?.contains("subscribe again") == true)
            #expect(lines < 2_000, "dropped after a bounded backlog, not after the whole flood (\(lines) lines)")
        }
        // The agent kept at most the bounded backlog of each stalled subscriber, and gave it back
        // (the 4,000 jobs it now holds cost about 1 KiB each).
        #expect((resident.max() ?? 0) - base < 16_384, "RSS \(base) KiB before, \(resident) KiB after each flood")
    }

    @Test func aHundredSubscribersAtOnceEachGetEveryEvent() throws {
        let sandbox = try Sandbox()
        try continuedJob(sandbox, "shared", "for i in 1 2 3 4 5; do echo PROGRESS=$i/5; done\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let subscribers = try (0..<100).map { _ in try EventSubscriber(socket: sandbox.socketPath) }
        #expect(try agent.ctl("submit", "local.shared").status == 0)
        var expected: [Int]?
        for subscriber in subscribers {
            let events = try subscriber.events(until: { $0.type == "run-ended" })
            let mine = events.filter { $0.identifier == "local.shared" }
            let kinds = mine.compactMap(\.type)
            #expect(kinds.first == "run-started" && kinds.last == "run-ended" && kinds.contains("run-progress"))
            let sequences = mine.compactMap(\.sequence)
            if let expected { #expect(sequences == expected, "every subscriber sees the same events") }
            expected = sequences
        }
        #expect(try agent.ctl("status").status == 0, "the agent still answers")
    }

    @Test func aSubscriberIsNotIdleWhileItWaitsForEvents() throws {
        let sandbox = try Sandbox()
        try continuedJob(sandbox, "later", "echo PROGRESS=1/1\n")
        let agent = try AgentProcess(sandbox: sandbox)
        let subscriber = try EventSubscriber(socket: sandbox.socketPath, filter: ["kinds": ["run-started", "run-ended"]])
        // Past the 10 s idle timeout that closes a connection with no request in progress: the
        // wait is for the event that says the timeout passed (none comes; the read times out).
        #expect(throws: (any Error).self) { _ = try subscriber.next(timeout: 11) }
        #expect(try agent.ctl("submit", "local.later").status == 0)
        let events = try subscriber.events(until: { $0.type == "run-ended" })
        #expect(events.first?.type == "run-started")
    }

    @Test func watchRedrawsWhenSomethingHappensNotOnlyEveryInterval() throws {
        let sandbox = try Sandbox()
        try continuedJob(sandbox, "briefly", "echo TITLE=Briefly\nsleep 0.3\n")
        let agent = try AgentProcess(sandbox: sandbox)
        // A 60 s interval: a second frame within the deadline below can only come from an event.
        let watch = Process()
        watch.executableURL = URL(fileURLWithPath: Binaries.agentctl)
        watch.arguments = ["--socket", sandbox.socketPath, "watch", "--interval", "60", "--count", "2"]
        let output = Pipe()
        watch.standardOutput = output
        let exited = DispatchSemaphore(value: 0)
        watch.terminationHandler = { _ in exited.signal() }
        try watch.run()
        let reader = output.fileHandleForReading
        var text = ""
        while !text.contains("Running") {
            let chunk = reader.availableData
            guard !chunk.isEmpty else { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        #expect(text.contains("Running: none"), "the first frame: \(text)")
        #expect(try agent.ctl("submit", "local.briefly").status == 0)
        let inTime = exited.wait(timeout: .now() + 20) == .success
        if !inTime { watch.terminate() }
        #expect(inTime, "watch drew its second frame on the run's events, long before its 60 s interval")
        watch.waitUntilExit()
        text += String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        #expect(watch.terminationStatus == 0)
        #expect(text.contains("local.briefly"), "\(text)")
    }
}
