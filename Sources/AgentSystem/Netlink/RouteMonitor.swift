// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Tracks whether the machine has a default route (DESIGN §6 "network"), through rtnetlink on an
/// `EventLoop`.
///
/// The socket joins RTMGRP_IPV4_ROUTE and RTMGRP_IPV6_ROUTE for route changes, and RTMGRP_LINK and
/// RTMGRP_IPV4_IFADDR because the kernel removes IPv4 routes *without* an RTM_DELROUTE when their
/// link goes down or their address goes away, and flags routes link-down on carrier loss without a
/// route notification. It then dumps the IPv4 and the IPv6 tables (RTM_GETROUTE, one family after
/// the other) and keeps the set of default routes (`RouteMessage.isDefaultRoute`: destination length
/// 0, main table, unicast, next hop alive) up to date from the notifications.
///
/// The tables are dumped again — "resync" — when the kernel reports a receive-queue overflow
/// (ENOBUFS), when a link changes or an IPv4 address is deleted, when a dump was interrupted
/// (NLM_F_DUMP_INTR), when a default route is replaced (NLM_F_REPLACE) and when a deleted default
/// route was not one we knew (its identity did not match). Requests made while a dump runs are merged
/// into one more dump after it.
///
/// `onChange` is called once the first dump completes (with the initial state) and afterwards each
/// time `hasDefaultRoute` flips. Only messages from the kernel (`nl_pid` 0) are read.
public final class RouteMonitor {
    /// Counters since creation.
    public struct Statistics: Equatable, Sendable {
        /// Datagrams read.
        public var received = 0
        /// Dumps completed.
        public var dumps = 0
        /// Dumps started again because of a resync request.
        public var resyncs = 0
        /// Receive-queue overflows.
        public var overflows = 0
        /// Datagrams that were not well-formed netlink.
        public var malformed = 0
        /// Datagrams not from the kernel.
        public var ignored = 0
        /// Dump requests that failed (retried after `retryDelay`).
        public var failures = 0

        public init() {}
    }

    // RTMGRP_* legacy bind groups.
    static let groupLink: UInt32 = 0x1
    static let groupIPv4Address: UInt32 = 0x10
    static let groupIPv4Route: UInt32 = 0x40
    static let groupIPv6Route: UInt32 = 0x400
    static let flagReplace: UInt16 = 0x100  // NLM_F_REPLACE in a notification

    /// How long to wait before retrying a dump request the kernel refused.
    public static let retryDelay: Duration = .seconds(1)

    /// Whether at least one default route exists (false until the first dump completes).
    public var hasDefaultRoute: Bool { !routes.isEmpty }
    /// Whether the first dump has completed (before that `hasDefaultRoute` means nothing).
    public private(set) var isSynchronized = false
    /// The default routes known now.
    public var defaultRoutes: Set<RouteMessage.Key> { routes }
    /// Counters since creation.
    public private(set) var statistics = Statistics()

    private struct Dump {
        var sequence: UInt32
        var remainingFamilies: [UInt8]
        var found: Set<RouteMessage.Key> = []
        var interrupted = false
    }

    private let loop: EventLoop
    private let socket: NetlinkSocket
    private var subscription: NetlinkSubscription?
    private let onChange: (Bool) -> Void
    private var routes: Set<RouteMessage.Key> = []
    private var dump: Dump?
    private var resyncPending = false
    private var retryTimer: TimerToken?
    private var published: Bool?
    private var lastSequence: UInt32 = 0

    /// Opens the rtnetlink socket (in the network namespace of `pid` when given), watches it on
    /// `loop` and starts the first dump. `onChange` runs on the loop thread.
    public init(loop: EventLoop, networkNamespaceOf pid: pid_t? = nil,
                receiveBufferSize: Int = NetlinkSocket.defaultReceiveBufferSize,
                onChange: @escaping (Bool) -> Void) throws {
        let groups = RouteMonitor.groupLink | RouteMonitor.groupIPv4Address | RouteMonitor.groupIPv4Route
            | RouteMonitor.groupIPv6Route
        socket = try NetlinkSocket(protocol: .route, groups: groups, networkNamespaceOf: pid,
                                   receiveBufferSize: receiveBufferSize)
        self.loop = loop
        self.onChange = onChange
        subscription = try NetlinkSubscription(loop: loop, socket: socket) { [weak self] received in
            self?.receive(received)
        }
        startDump()
    }

    deinit {
        close()
    }

    /// Stops watching and closes the socket (idempotent; safe from inside `onChange`).
    public func close() {
        subscription?.close()
        if let retryTimer {
            loop.cancel(retryTimer)
            self.retryTimer = nil
        }
        socket.close()
    }

    /// Dumps the tables again (merged with a dump already running).
    public func resync() {
        if dump != nil {
            resyncPending = true
        } else {
            statistics.resyncs += 1
            startDump()
        }
    }

    /// Reads every queued datagram.
    public func drain() {
        subscription?.drain()
    }

    /// Waits here, at most `timeout`, for the first dump, reading the socket itself rather than
    /// through the loop: for the agent's start, whose first decisions and first log line should
    /// see the routes as they are, not "none yet". The kernel answers a dump at once; the bound
    /// is for one that does not. Returns `isSynchronized`.
    public func synchronize(within timeout: Duration) -> Bool {
        let deadline = MonotonicInstant.now() + timeout
        while !isSynchronized, !socket.isClosed {
            let now = MonotonicInstant.now()
            guard now < deadline else { break }
            let left = deadline.nanoseconds - now.nanoseconds
            var entry = pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(min((left + 999_999) / 1_000_000, 60_000)))
            if ready < 0, errno != EINTR { break }
            if ready > 0 { drain() }
        }
        return isSynchronized
    }

    private func receive(_ received: NetlinkSubscription.Received) {
        switch received {
        case .overflow:
            statistics.overflows += 1
            resync()
        case .failed:
            statistics.failures += 1
        case .datagram(let datagram):
            statistics.received += 1
            handle(datagram)
        }
    }

    // MARK: - Dumps

    private func startDump() {
        guard !socket.isClosed else { return }
        dump = Dump(sequence: 0, remainingFamilies: [UInt8(AF_INET), UInt8(AF_INET6)])
        requestNextFamily()
    }

    /// Sends the dump request for the next family of the running dump.
    private func requestNextFamily() {
        guard var current = dump, !current.remainingFamilies.isEmpty else { return }
        let family = current.remainingFamilies.removeFirst()
        lastSequence &+= 1
        if lastSequence == 0 { lastSequence = 1 }
        current.sequence = lastSequence
        dump = current
        do {
            try socket.send(RouteMessage.dumpRequest(family: family, sequence: current.sequence))
        } catch {
            dumpFailed()
        }
    }

    private func dumpFailed() {
        statistics.failures += 1
        dump = nil
        resyncPending = false
        guard retryTimer == nil, !socket.isClosed else { return }
        retryTimer = loop.schedule(after: RouteMonitor.retryDelay) { [weak self] in
            guard let self else { return }
            self.retryTimer = nil
            self.startDump()
        }
    }

    private func finishDump(_ completed: Dump) {
        dump = nil
        if completed.interrupted {
            statistics.resyncs += 1
            startDump()
            return
        }
        statistics.dumps += 1
        routes = completed.found
        isSynchronized = true
        if resyncPending {
            // Something changed in a way notifications do not describe while we dumped: dump again
            // before reporting (the state just read may already be stale).
            resyncPending = false
            statistics.resyncs += 1
            startDump()
            if published == nil { return }
        }
        publish()
    }

    // MARK: - Messages

    private func handle(_ datagram: NetlinkDatagram) {
        guard datagram.sender.isKernel else {
            statistics.ignored += 1
            return
        }
        let batch = NetlinkMessage.split(datagram.bytes)
        if batch.isMalformed || datagram.truncated { statistics.malformed += 1 }
        let multicast = datagram.sender.groups != 0
        for message in batch.messages {
            if socket.isClosed { return }
            if !multicast, let running = dump, message.sequence == running.sequence, message.portID == socket.portID {
                handleDumpReply(message)
            } else if multicast {
                handleNotification(message)
            }
        }
        if multicast { publish() }
    }

    private func handleDumpReply(_ message: NetlinkMessage) {
        guard var running = dump else { return }
        if message.flags.contains(.dumpInterrupted) { running.interrupted = true }
        switch message.type {
        case RouteMessage.typeNewRoute:
            if let route = RouteMessage(message), route.isDefaultRoute { running.found.insert(route.key) }
            dump = running
        case NetlinkMessage.typeDone:
            dump = running
            if running.remainingFamilies.isEmpty {
                finishDump(running)
            } else {
                requestNextFamily()
            }
        case NetlinkMessage.typeError:
            if message.errorCode == 0 { return }
            dumpFailed()
        default:
            dump = running
        }
    }

    private func handleNotification(_ message: NetlinkMessage) {
        switch message.type {
        case RouteMessage.typeNewRoute:
            guard let route = RouteMessage(message) else { return }
            if route.isDefaultRoute {
                routes.insert(route.key)
                dump?.found.insert(route.key)
                if message.flags.rawValue & RouteMonitor.flagReplace != 0 { resync() }
            } else if route.destinationLength == 0, route.table == RouteMessage.tableMain {
                // A default that became unusable (dead/link-down) or turned into a non-unicast one.
                routes.remove(route.key)
                dump?.found.remove(route.key)
            }
        case RouteMessage.typeDeleteRoute:
            guard let route = RouteMessage(message), route.destinationLength == 0,
                  route.table == RouteMessage.tableMain else { return }
            let known = routes.remove(route.key) != nil
            dump?.found.remove(route.key)
            if route.isDefaultRoute && !known { resync() }
        case RouteMessage.typeNewLink, RouteMessage.typeDeleteLink, RouteMessage.typeDeleteAddress:
            resync()
        default:
            break
        }
    }

    private func publish() {
        guard isSynchronized else { return }
        let now = hasDefaultRoute
        guard published != now else { return }
        published = now
        onChange(now)
    }
}
