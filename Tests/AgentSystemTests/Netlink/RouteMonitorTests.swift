// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
@testable import AgentSystem

/// Live tests against the kernel's rtnetlink, each in a fresh network namespace (a child process
/// from `unshare -n`), so the host's routes are neither read nor touched. This kernel has no dummy
/// driver; a veth pair with both ends up gives a link with carrier for the routes.
@Suite("RouteMonitor")
struct RouteMonitorTests {
    /// Creates the veth pair v0/v1 inside `namespace` with both ends up.
    private func addLink(_ namespace: NetworkNamespace) throws {
        try namespace.run("ip", "link", "add", "v0", "type", "veth", "peer", "name", "v1")
        try namespace.run("ip", "link", "set", "v0", "up")
        try namespace.run("ip", "link", "set", "v1", "up")
    }

    /// A namespace with the veth pair up and a default route through v0.
    private func routedNamespace() throws -> NetworkNamespace {
        let namespace = try NetworkNamespace()
        do {
            try addLink(namespace)
            try namespace.run("ip", "route", "add", "default", "dev", "v0")
        } catch {
            namespace.stop()
            throw error
        }
        return namespace
    }

    @Test func aDefaultRouteAppearingIsReported() throws {
        let namespace = try NetworkNamespace()
        defer { namespace.stop() }
        let loop = try EventLoop()
        var changes: [Bool] = []
        let monitor = try RouteMonitor(loop: loop, networkNamespaceOf: namespace.pid) { changes.append($0) }
        defer { monitor.close() }

        #expect(runLoop(loop, until: { monitor.isSynchronized }))
        #expect(changes == [false])
        #expect(!monitor.hasDefaultRoute)

        try addLink(namespace)
        try namespace.run("ip", "route", "add", "default", "dev", "v0")
        #expect(runLoop(loop, until: { changes.last == true }))
        #expect(monitor.hasDefaultRoute)
        #expect(monitor.defaultRoutes.count == 1)
        #expect(monitor.defaultRoutes.first?.family == UInt8(AF_INET))

        try namespace.run("ip", "route", "del", "default", "dev", "v0")
        #expect(runLoop(loop, until: { changes.last == false }))
        #expect(changes == [false, true, false])
        #expect(monitor.defaultRoutes.isEmpty)
    }

    @Test func anIPv6DefaultRouteCountsToo() throws {
        let namespace = try NetworkNamespace()
        defer { namespace.stop() }
        try addLink(namespace)
        let loop = try EventLoop()
        var changes: [Bool] = []
        let monitor = try RouteMonitor(loop: loop, networkNamespaceOf: namespace.pid) { changes.append($0) }
        defer { monitor.close() }
        #expect(runLoop(loop, until: { monitor.isSynchronized }))

        try namespace.run("ip", "-6", "route", "add", "default", "dev", "v0")
        #expect(runLoop(loop, until: { changes.last == true }))
        #expect(monitor.defaultRoutes.first?.family == UInt8(AF_INET6))
        try namespace.run("ip", "-6", "route", "del", "default", "dev", "v0")
        #expect(runLoop(loop, until: { changes.last == false }))
        #expect(changes == [false, true, false])
    }

    @Test func aRouteThatExistsBeforeOpeningIsFoundByTheDump() throws {
        let namespace = try routedNamespace()
        defer { namespace.stop() }
        let loop = try EventLoop()
        var changes: [Bool] = []
        let monitor = try RouteMonitor(loop: loop, networkNamespaceOf: namespace.pid) { changes.append($0) }
        defer { monitor.close() }
        #expect(runLoop(loop, until: { !changes.isEmpty }))
        #expect(changes == [true])
        #expect(monitor.statistics.dumps >= 1)
    }

    /// At the agent's start the first dump is awaited without the loop, so that the first
    /// decisions see the routes as they are.
    @Test func theFirstDumpCanBeAwaitedBeforeTheLoopRuns() throws {
        let namespace = try routedNamespace()
        defer { namespace.stop() }
        let loop = try EventLoop()
        var changes: [Bool] = []
        let monitor = try RouteMonitor(loop: loop, networkNamespaceOf: namespace.pid) { changes.append($0) }
        defer { monitor.close() }
        #expect(!monitor.isSynchronized)
        #expect(monitor.synchronize(within: .seconds(10)))
        #expect(monitor.hasDefaultRoute)
        #expect(changes == [true])

        let empty = try NetworkNamespace()
        defer { empty.stop() }
        let unrouted = try RouteMonitor(loop: loop, networkNamespaceOf: empty.pid) { _ in }
        defer { unrouted.close() }
        #expect(unrouted.synchronize(within: .seconds(10)))
        #expect(!unrouted.hasDefaultRoute)
    }

    /// The kernel flushes IPv4 routes of a link that goes down without sending RTM_DELROUTE; the
    /// link notification makes the monitor dump again.
    @Test func aLinkGoingDownRemovesItsDefaultRouteThroughAResync() throws {
        let namespace = try routedNamespace()
        defer { namespace.stop() }
        let loop = try EventLoop()
        var changes: [Bool] = []
        let monitor = try RouteMonitor(loop: loop, networkNamespaceOf: namespace.pid) { changes.append($0) }
        defer { monitor.close() }
        #expect(runLoop(loop, until: { changes == [true] }))

        try namespace.run("ip", "link", "set", "v0", "down")
        #expect(runLoop(loop, until: { changes.last == false }))
        #expect(monitor.statistics.resyncs >= 1)
    }

    @Test func aResyncRequestedByTheDaemonKeepsTheState() throws {
        let namespace = try routedNamespace()
        defer { namespace.stop() }
        let loop = try EventLoop()
        var changes: [Bool] = []
        let monitor = try RouteMonitor(loop: loop, networkNamespaceOf: namespace.pid) { changes.append($0) }
        defer { monitor.close() }
        #expect(runLoop(loop, until: { monitor.statistics.dumps == 1 }))
        monitor.resync()
        monitor.resync()  // merged into the running dump's follow-up, not a third dump at once
        #expect(runLoop(loop, until: { monitor.statistics.dumps >= 2 }))
        #expect(changes == [true])
        #expect(monitor.hasDefaultRoute)
    }
}
