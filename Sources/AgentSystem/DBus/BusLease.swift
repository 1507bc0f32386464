// SPDX-License-Identifier: Apache-2.0

/// One client's share of the shared system-bus connection (`SystemBus`): the matches it installed
/// and the calls it has pending, cancelled together when the client leaves, so one monitor
/// stopping never touches another's matches. A lease is for one connection: after a reconnect
/// each client gets a new one.
///
/// Loop-thread only.
final class BusLease {
    private let connection: BusConnection
    /// Tokens handed out; replies already delivered are pruned now and then (a reply's token
    /// goes dead on its own).
    private var tokens: [BusConnection.Token] = []
    private var ended = false

    init(connection: BusConnection) {
        self.connection = connection
    }

    /// A method call with string arguments, as `BusConnection.call`; cancelled with the lease.
    @discardableResult
    func call(destination: String, path: String, interface: String, member: String, arguments: [String] = [],
              timeout: Duration, reply: @escaping (BusMessage) -> Void) throws(BusError) -> BusConnection.Token {
        try check()
        return keep(try connection.call(destination: destination, path: path, interface: interface, member: member,
                                        arguments: arguments, timeout: timeout, reply: reply))
    }

    /// A match rule, as `BusConnection.addMatch`; removed with the lease.
    @discardableResult
    func addMatch(_ rule: String, onInstalled: @escaping (BusError?) -> Void,
                  onMessage: @escaping (BusMessage) -> Void) throws(BusError) -> BusConnection.Token {
        try check()
        return keep(try connection.addMatch(rule, onInstalled: onInstalled, onMessage: onMessage))
    }

    /// Ends one call or match of this lease.
    func cancel(_ token: BusConnection.Token) {
        connection.cancel(token)
    }

    /// Cancels everything this lease registered; later calls throw.
    func end() {
        guard !ended else { return }
        ended = true
        for token in tokens { connection.cancel(token) }
        tokens = []
    }

    private func check() throws(BusError) {
        if ended { throw BusError(name: nil, message: "bus lease ended") }
    }

    private func keep(_ token: BusConnection.Token) -> BusConnection.Token {
        if tokens.count >= 64 { tokens.removeAll { !connection.isRegistered($0) } }
        tokens.append(token)
        return token
    }
}
