// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import Testing

/// A request is one typed value per verb; on the wire it is the JSON line agentctl has always
/// sent, and a line that lacks what its verb needs is refused at the socket, naming the field.
@Suite struct ControlRequestTests {
    private func line(_ request: ControlRequest) throws -> String {
        String(decoding: try MessageCoding.encodeLine(request), as: UTF8.self)
    }

    private func decode(_ text: String) throws -> ControlRequest {
        try MessageCoding.decode(ControlRequest.self, from: Array(text.utf8))
    }

    /// The refusal a line gets, or nil when it decodes.
    private func refusal(_ text: String) -> ControlError? {
        do {
            _ = try decode(text)
            return nil
        } catch let error as ControlError {
            return error
        } catch {
            return ControlError(code: .internal, message: "not a refusal: \(error)")
        }
    }

    static let lines: [(ControlRequest, String)] = [
        (.status, #"{"command":"status"}"#),
        (.list(), #"{"command":"list"}"#),
        (.list(page: PageRequest()), #"{"command":"list","limit":10000}"#),
        (.list(page: PageRequest(offset: 250, limit: 100)), #"{"command":"list","limit":100,"offset":250}"#),
        (.history(HistoryQuery()), #"{"command":"history"}"#),
        (.history(HistoryQuery(target: "local.backup", limit: 50, cursor: RunCursor(runID: RunID(31), startedAt: 1_796_111_000_000), omitLogTails: true,
                               since: 1_796_112_000_000, until: 1_796_198_400_000)),
         #"{"command":"history","cursor":"r000031@1796111000000","limit":50,"omitLogTails":true,"since":"2026-12-01T08:00:00.000Z","target":"local.backup","until":"2026-12-02T08:00:00.000Z"}"#),
        (.cancel(target: "r000042"), #"{"command":"cancel","target":"r000042"}"#),
        (.simulateLaunch(target: "local.a"), #"{"command":"simulate-launch","target":"local.a"}"#),
        (.simulateExpire(target: "local.a"), #"{"command":"simulate-expire","target":"local.a"}"#),
        (.pending(target: nil), #"{"command":"pending"}"#),
        (.pending(target: "local.a"), #"{"command":"pending","target":"local.a"}"#),
        (.pending(target: nil, page: PageRequest(offset: 1000)), #"{"command":"pending","limit":10000,"offset":1000}"#),
        (.explain(target: "local.a"), #"{"command":"explain","target":"local.a"}"#),
        (.trigger(target: "local.a"), #"{"command":"trigger","target":"local.a"}"#),
        (.submit(target: "local.export", SubmitRequest()),
         #"{"command":"submit","submission":{"arguments":[],"strategy":"queue"},"target":"local.export"}"#),
        (.submit(target: "local.export", SubmitRequest(title: "Export", subtitle: "3 photos", strategy: .fail,
                                                       arguments: ["--to=/mnt"], notify: false)),
         #"{"command":"submit","submission":{"arguments":["--to=/mnt"],"notify":false,"strategy":"fail","subtitle":"3 photos","title":"Export"},"target":"local.export"}"#),
        (.enable(target: "local.a"), #"{"command":"enable","target":"local.a"}"#),
        (.disable(target: "local.a"), #"{"command":"disable","target":"local.a"}"#),
        (.pause, #"{"command":"pause"}"#),
        (.resume, #"{"command":"resume"}"#),
        (.runIfStale(target: "local.a", maxAge: .seconds(43_200)),
         #"{"command":"run-if-stale","maxAgeSeconds":43200,"target":"local.a"}"#),
        (.lowpower(.on), #"{"command":"lowpower","mode":"on"}"#),
        (.resources, #"{"command":"resources"}"#),
        (.metrics(), #"{"command":"metrics"}"#),
        (.metrics(page: PageRequest(offset: 40, limit: 20)), #"{"command":"metrics","limit":20,"offset":40}"#),
        (.subscribe(EventFilter(identifiers: ["local.*"], kinds: ["run-ended"])),
         #"{"command":"subscribe","filter":{"identifiers":["local.*"],"kinds":["run-ended"]}}"#),
        (.request(target: "local.a", RunRequestOptions()), #"{"command":"request","request":{},"target":"local.a"}"#),
        (.request(target: "local.a", RunRequestOptions(earliestBegin: 1_796_112_000, requiresNetwork: .unmetered)),
         #"{"command":"request","request":{"earliestBegin":"2026-12-01T08:00:00.000Z","requiresNetwork":"unmetered"},"target":"local.a"}"#),
        (.cancelRequest(.identifier("local.a")), #"{"command":"cancel-request","target":"local.a"}"#),
        (.cancelRequest(.identifier("local.a", exactly: true)), #"{"command":"cancel-request","exact":true,"target":"local.a"}"#),
        (.cancelRequest(.all), #"{"all":true,"command":"cancel-request"}"#),
        (.logs(LogsQuery(target: "local.a", limit: 20, cursor: RunCursor(runID: RunID(7), startedAt: nil))),
         #"{"command":"logs","cursor":"r000007","limit":20,"target":"local.a"}"#),
        (.run(target: "local.a"), #"{"command":"run","target":"local.a"}"#),
    ]

    @Test func everyVerbsRequestIsTheLineAgentctlHasAlwaysSent() throws {
        #expect(Set(Self.lines.map(\.0.command)) == Set(ControlCommand.allCases))
        for (request, text) in Self.lines {
            let sent = try line(request)
            #expect(sent == text, "\(sent)")
            #expect(try decode(text) == request)
        }
    }

    @Test func aPageIsAskedForWithALimitAndAnOffsetAtLeastZero() throws {
        #expect(try decode(#"{"command":"list","limit":50000}"#) == .list(page: PageRequest(limit: PageRequest.maxLimit)))
        #expect(try decode(#"{"command":"pending","target":"local.a","limit":10}"#) == .pending(target: "local.a"),
                "one identifier's entries are never paged")
        #expect(refusal(#"{"command":"list","offset":100}"#)
                == ControlError(code: .badRequest, message: #"list: "offset" needs "limit" (entries per page, 1 to 10000)"#))
        #expect(refusal(#"{"command":"list","limit":0}"#)
                == ControlError(code: .badRequest, message: #"list: "limit" must be 1 or more (got 0)"#))
        #expect(refusal(#"{"command":"pending","limit":10,"offset":-1}"#)
                == ControlError(code: .badRequest, message: #"pending: "offset" must be 0 or more: the nextOffset of the previous answer (got -1)"#))
    }

    @Test func unknownFieldsAndThoseOfOtherVerbsAreIgnored() throws {
        #expect(try decode(#"{"command":"status","target":"x","colour":"blue"}"#) == .status)
        #expect(try decode(#"{"command":"cancel-request","all":true,"target":"local.a"}"#) == .cancelRequest(.all))
    }

    @Test func aVerbWithoutItsTargetIsRefusedNamingTheField() {
        for verb in ["cancel", "simulate-launch", "simulate-expire", "explain", "trigger", "submit", "enable", "disable",
                     "run-if-stale", "request", "logs", "run"] {
            let refused = refusal(#"{"command":"\#(verb)","maxAgeSeconds":60}"#)
            #expect(refused?.code == .badRequest, "\(verb)")
            #expect(refused?.message.hasPrefix("\(verb) needs \"target\"") == true, "\(verb): \(refused?.message ?? "accepted")")
        }
        #expect(refusal(#"{"command":"logs","target":""}"#)?.message.hasPrefix("logs needs \"target\"") == true)
        #expect(refusal(#"{"command":"cancel-request"}"#)?.message.contains("\"all\": true") == true)
    }

    @Test func aRequestWithAnUnknownStrategyIsRefusedNamingTheField() {
        let refused = refusal(#"{"command":"submit","target":"local.export","submission":{"arguments":[],"strategy":"later"}}"#)
        #expect(refused == ControlError(code: .badRequest, message: #"submit: "submission.strategy" must be queue or fail (got "later")"#))
    }

    @Test func aLowPowerModeThatIsNotOneIsRefusedNamingTheField() {
        #expect(refusal(#"{"command":"lowpower","mode":"sometimes"}"#)
                == ControlError(code: .badRequest, message: #"lowpower: "mode" must be on, off or auto (got "sometimes")"#))
        #expect(refusal(#"{"command":"lowpower"}"#)?.message.hasSuffix("(got nothing)") == true)
    }

    @Test func runIfStaleNeedsAnAgeOfZeroOrMore() {
        #expect(refusal(#"{"command":"run-if-stale","target":"local.a"}"#)?.message.contains("\"maxAgeSeconds\"") == true)
        #expect(refusal(#"{"command":"run-if-stale","target":"local.a","maxAgeSeconds":-1}"#)?.code == .badRequest)
    }

    @Test func aSubscriptionToAKindThatIsNotOneIsRefusedAtTheSocket() {
        #expect(refusal(#"{"command":"subscribe","filter":{"kinds":["run-teleported"]}}"#)?.message
                .hasPrefix(#"subscribe: "run-teleported" is not an event kind"#) == true)
        #expect(refusal(#"{"command":"subscribe"}"#) == nil)
    }

    @Test func aLineThatIsNoRequestIsADecodingErrorNotARefusal() {
        #expect(throws: DecodingError.self) { try decode(#"{"command":"nonsense"}"#) }
        #expect(throws: DecodingError.self) { try decode(#"{"target":"local.a"}"#) }
    }
}
