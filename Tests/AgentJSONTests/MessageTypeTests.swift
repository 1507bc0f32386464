// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentJSON
import AgentProtocol
import Foundation
import Testing

/// Every real message type encodes to JSONEncoder's bytes and decodes as JSONDecoder decodes it.
@Suite struct MessageTypeTests {
    @Test func requests() throws {
        for request in Messages.requests {
            expectSameEncoding(request)
            try expectSameRoundTrip(request)
            #expect(try JSONLineDecoder().decode(ControlRequest.self, from: JSONLineEncoder().encode(request)) == request)
        }
        for request in Messages.everyVerb {
            expectSameEncoding(request)
            try expectSameRoundTrip(request)
        }
    }

    @Test func responsesWithEveryPayload() throws {
        for response in Messages.responses {
            expectSameEncoding(response)
            try expectSameRoundTrip(response)
        }
        expectSameEncoding(Messages.largeStatus(count: 500))
        try expectSameRoundTrip(ControlResponseFields(.success(.status(Messages.largeStatus(count: 200)))))
    }

    @Test func events() throws {
        for event in Messages.events {
            expectSameEncoding(event)
            try expectSameRoundTrip(event)
            #expect(try JSONLineDecoder().decode(AgentEvent.self, from: JSONLineEncoder().encode(event)) == event)
        }
    }

    @Test func metrics() throws {
        expectSameEncoding(Messages.metrics)
        try expectSameRoundTrip(Messages.metrics)
        #expect(try JSONLineDecoder().decode(MetricsSnapshot.self, from: JSONLineEncoder().encode(Messages.metrics))
            == Messages.metrics)
    }

    @Test func theSchedulersPersistedState() throws {
        let snapshot = Messages.persisted
        expectSameEncoding(snapshot)
        try expectSameRoundTrip(snapshot)
        #expect(try JSONLineDecoder().decode(PersistedSchedule.self, from: JSONLineEncoder().encode(snapshot)) == snapshot)
        expectSameEncoding(snapshot.globalsOnly)
        for record in Messages.identifierSchedules {
            expectSameEncoding(record)
            try expectSameRoundTrip(record)
            #expect(try JSONLineDecoder().decode(IdentifierSchedule.self, from: JSONLineEncoder().encode(record)) == record)
        }
    }

    /// What the agent stored before AgentJSON (JSONEncoder's defaults: keys unsorted, `\/`) still loads.
    @Test func stateWrittenByJSONEncoderStillLoads() throws {
        let old = Array(try JSONEncoder().encode(Messages.persisted))
        #expect(try JSONLineDecoder().decode(PersistedSchedule.self, from: old) == Messages.persisted)
        expectSameDecoding(PersistedSchedule.self, Array(#"{"paused":true,"lastSuccess":{"bad id":1,"com.example.a":2}}"#.utf8))
    }

    /// A request as a script might write it: spaces, escapes, fields in any order, unknown fields.
    @Test func handWrittenRequests() {
        let texts = [
            #"  {"command" : "status"}  "#,
            #"{"target":"local.backup","command":"history","limit":10.0,"unknown":[1,{"x":null}]}"#,
            #"{"command":"history","limit":1e1}"#,
            #"{"command":"history","limit":10.5}"#,
            #"{"command":"history","limit":"10"}"#,
            #"{"command":"nonsense"}"#,
            #"{"command":null}"#,
            #"{}"#,
            #"{"command":"run-if-stale","target":"local.\u0062ackup","maxAgeSeconds":9223372036854775808}"#,
            #"{"command":"submit","target":"a.b","submission":{"arguments":["\ud83d\ude00"],"strategy":"queue"}}"#,
            #"{"command":"subscribe","filter":{"kinds":["run-ended"],"identifiers":null}}"#,
        ]
        for text in texts {
            expectSameDecoding(ControlRequest.self, text)
        }
    }
}
