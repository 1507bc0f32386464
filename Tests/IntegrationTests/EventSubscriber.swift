// SPDX-License-Identifier: Apache-2.0
import AgentSystem
import Foundation
import Testing

/// A test's subscription to a real agent's event stream (`subscribe` on the control socket),
/// read line by line with a deadline.
final class EventSubscriber {
    let client: ControlClient
    /// The sequence number the stream starts after (from the subscription's answer).
    let after: UInt64

    /// Subscribes with `filter` (the request's `filter` object; nil for everything).
    init(socket: String, filter: [String: Any]? = nil) throws {
        client = try ControlClient.connect(path: socket)
        var request: [String: Any] = ["command": "subscribe"]
        if let filter { request["filter"] = filter }
        try client.send(line: Array(try JSONSerialization.data(withJSONObject: request)))
        let answer = try Self.object(try client.readLine(timeout: .seconds(20)))
        guard answer["ok"] as? Bool == true, let after = answer["sequence"] as? Int else {
            throw SubscribeRefused(answer: "\(answer)")
        }
        self.after = UInt64(after)
    }

    /// The agent's answer to the refused subscribe, as text.
    struct SubscribeRefused: Error { var answer: String }

    /// The next event, or nil when the agent closed the connection.
    func next(timeout: Double = 30) throws -> [String: Any]? {
        guard let line = try client.readLine(timeout: .milliseconds(Int64(timeout * 1000))) else { return nil }
        return try Self.object(line)
    }

    /// Events up to and including the first that satisfies `last`; fails the test at the deadline
    /// or when the stream ends first.
    func events(until last: ([String: Any]) -> Bool, timeout: Double = 60,
                sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(timeout)
        var seen: [[String: Any]] = []
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0, let event = try next(timeout: left) else {
                Issue.record("the stream ended or went quiet before the expected event; saw \(seen.count) events, the last: \(seen.suffix(3))",
                             sourceLocation: sourceLocation)
                throw POSIXError(.ETIMEDOUT)
            }
            seen.append(event)
            if last(event) { return seen }
        }
    }

    static func object(_ line: [UInt8]?) throws -> [String: Any] {
        guard let line, let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
            throw POSIXError(.EBADMSG)
        }
        return object
    }
}

extension Dictionary where Key == String, Value == Any {
    var type: String? { self["type"] as? String }
    var identifier: String? { self["identifier"] as? String }
    var runID: String? { self["runID"] as? String }
    var sequence: Int? { self["sequence"] as? Int }
}
