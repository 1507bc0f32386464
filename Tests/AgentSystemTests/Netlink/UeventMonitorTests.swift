// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim
import Synchronization
import Testing
@testable import AgentSystem

/// End-to-end uevent tests against the real kernel: the monitor's socket and the injector's socket
/// are both created in a fresh network namespace, where the kernel delivers neither the host's
/// device events nor ours to anyone else (udevd listens in the host namespace only).
@Suite("UeventMonitor")
struct UeventMonitorTests {
    @Test func aPowerSupplyChangeIsReportedAndOthersAreFiltered() throws {
        let namespace = try NetworkNamespace()
        defer { namespace.stop() }
        let loop = try EventLoop()
        var events: [UeventMonitor.Event] = []
        let monitor = try UeventMonitor(loop: loop, subsystems: ["power_supply", "thermal"],
                                        networkNamespaceOf: namespace.pid) { events.append($0) }
        defer { monitor.close() }
        let injector = try UeventInjector(networkNamespaceOf: namespace.pid)
        defer { injector.close() }

        // Sent in this order; a datagram socket keeps it, so once the power_supply event is in,
        // the ones before it have been counted.
        try injector.send(Uevent(action: "add", devpath: "/devices/virtual/net/v9",
                                 properties: ["SUBSYSTEM": "net", "INTERFACE": "v9"]))
        try injector.send(raw: Array("libudev".utf8) + [0, 0xfe, 0xed, 0xca, 0xfe])
        try injector.send(raw: Array("no header here".utf8))
        try injector.send(raw: Array("change@/devices/x\0MISSING_EQUALS\0".utf8))
        try injector.send(UeventInjector.powerSupplyChange(name: "AC", online: false))

        #expect(runLoop(loop, until: { !events.isEmpty }))
        guard case .uevent(let event)? = events.first else {
            Issue.record("expected a uevent, got \(events)")
            return
        }
        #expect(event.action == "change")
        #expect(event.subsystem == "power_supply")
        #expect(event["POWER_SUPPLY_NAME"] == "AC")
        #expect(event["POWER_SUPPLY_ONLINE"] == "0")
        #expect(event.devpath.hasSuffix("/power_supply/AC"))
        #expect(events.count == 1)
        #expect(monitor.statistics.received == 5)
        #expect(monitor.statistics.filtered == 1)
        #expect(monitor.statistics.malformed == 3)
        #expect(monitor.statistics.delivered == 1)
        #expect(monitor.statistics.rejectedSenders == 0)
    }

    @Test func theHostNamespaceSeesNothingOfTheInjectedEvents() throws {
        // A monitor in its own namespace A must not see an event injected in namespace B.
        let first = try NetworkNamespace()
        let second = try NetworkNamespace()
        defer {
            first.stop()
            second.stop()
        }
        let loop = try EventLoop()
        var inFirst: [UeventMonitor.Event] = []
        var inSecond: [UeventMonitor.Event] = []
        let monitorA = try UeventMonitor(loop: loop, subsystems: nil, networkNamespaceOf: first.pid) { inFirst.append($0) }
        let monitorB = try UeventMonitor(loop: loop, subsystems: nil, networkNamespaceOf: second.pid) { inSecond.append($0) }
        defer {
            monitorA.close()
            monitorB.close()
        }
        let injectorB = try UeventInjector(networkNamespaceOf: second.pid)
        try injectorB.send(UeventInjector.powerSupplyChange(name: "BAT0"))
        #expect(runLoop(loop, until: { !inSecond.isEmpty }))
        // Then a marker in A: once it is in, anything B's event could have caused in A is too.
        let injectorA = try UeventInjector(networkNamespaceOf: first.pid)
        try injectorA.send(UeventInjector.powerSupplyChange(name: "MARK"))
        #expect(runLoop(loop, until: { !inFirst.isEmpty }))
        #expect(inFirst == [.uevent(UeventInjector.powerSupplyChange(name: "MARK"))])
        #expect(monitorA.statistics.received == 1)
    }

    @Test func aFloodOfTenThousandEventsIsDrainedWithoutLosingTheMonitor() throws {
        let namespace = try NetworkNamespace()
        defer { namespace.stop() }
        let loop = try EventLoop()
        var delivered = 0
        var resyncs = 0
        var sawMarker = false
        let monitor = try UeventMonitor(loop: loop, subsystems: ["power_supply"],
                                        networkNamespaceOf: namespace.pid) { event in
            switch event {
            case .resync: resyncs += 1
            case .uevent(let uevent):
                if uevent["POWER_SUPPLY_NAME"] == "MARKER" { sawMarker = true } else { delivered += 1 }
            }
        }
        defer { monitor.close() }

        let count = 10_000
        let pid = namespace.pid
        let sendFailures = Atomic<Int>(0)
        var floodDone = false
        let done = try Mailbox<Int>(loop: loop) { _ in floodDone = true }
        let sender = done.sender
        let flooder = TestThread {
            do {
                let injector = try UeventInjector(networkNamespaceOf: pid)
                let event = UeventInjector.powerSupplyChange(name: "BAT0")
                for _ in 0..<count {
                    do { try injector.send(event) } catch { sendFailures.add(1, ordering: .relaxed) }
                }
                injector.close()
            } catch {
                sendFailures.add(count, ordering: .relaxed)
            }
            _ = sender.post(1)
        }
        let started = MonotonicInstant.now()
        #expect(runLoop(loop, until: { floodDone }))
        flooder.join()
        let elapsed = MonotonicInstant.now() - started
        #expect(sendFailures.load(ordering: .relaxed) == 0)

        // The flood is over: empty the queue, then a marker cannot be dropped for lack of room.
        monitor.drain()
        let injector = try UeventInjector(networkNamespaceOf: namespace.pid)
        defer { injector.close() }
        try injector.send(UeventInjector.powerSupplyChange(name: "MARKER"))
        #expect(runLoop(loop, until: { sawMarker }))

        // Every event was either delivered, or lost in an overflow that was reported as a resync.
        #expect(delivered <= count)
        #expect(delivered == count || resyncs > 0)
        #expect(resyncs == monitor.statistics.overflows)
        #expect(monitor.statistics.malformed == 0)
        print("uevent flood: \(count) sent in \(elapsed), \(delivered) delivered, \(resyncs) resyncs, "
              + "receive buffer \(monitor.receiveBufferSize) bytes")
    }

    @Test func theSenderPolicyAcceptsTheKernelAndRootOnly() {
        #expect(UeventMonitor.accepts(NetlinkSender(portID: 0, groups: 1)))
        #expect(UeventMonitor.accepts(NetlinkSender(portID: 0, groups: 1,
                                                    credentials: NetlinkCredentials(pid: 0, uid: 0, gid: 0))))
        #expect(UeventMonitor.accepts(NetlinkSender(portID: 4242, groups: 1,
                                                    credentials: NetlinkCredentials(pid: 17, uid: 0, gid: 0))))
        #expect(!UeventMonitor.accepts(NetlinkSender(portID: 4242, groups: 0,
                                                     credentials: NetlinkCredentials(pid: 17, uid: 1000, gid: 1000))))
        #expect(!UeventMonitor.accepts(NetlinkSender(portID: 4242, groups: 1, credentials: nil)))
    }

    /// An unprivileged process cannot even send: the kernel refuses unicasts and multicasts on
    /// NETLINK_KOBJECT_UEVENT without CAP_NET_ADMIN (EPERM). The monitor's uid check is a second
    /// line behind that (it also turns away capable non-root daemons).
    @Test func anUnprivilegedSenderIsRefusedByTheKernel() throws {
        let namespace = try NetworkNamespace()
        defer { namespace.stop() }
        let loop = try EventLoop()
        var events: [UeventMonitor.Event] = []
        let monitor = try UeventMonitor(loop: loop, subsystems: nil, networkNamespaceOf: namespace.pid) {
            events.append($0)
        }
        defer { monitor.close() }
        let pid = namespace.pid
        let port = monitor.portID
        let outcome = Atomic<Int32>(-1)
        let unprivileged = TestThread {
            // Create the socket while still root (entering the namespace needs CAP_SYS_ADMIN)...
            guard let injector = try? UeventInjector(networkNamespaceOf: pid) else { return }
            defer { injector.close() }
            // ...then drop to uid 65534 for this thread only (glibc's setresuid would change every
            // thread of the test process).
            guard cshim_thread_set_ids(65534, 65534) == 0 else { return }
            do {
                try injector.send(raw: UeventInjector.powerSupplyChange(name: "EVIL").encoded(), toPort: port)
                outcome.store(0, ordering: .relaxed)
            } catch let error as SystemError {
                outcome.store(error.errno, ordering: .relaxed)
            } catch {}
        }
        unprivileged.join()
        #expect(outcome.load(ordering: .relaxed) == EPERM)
        let injector = try UeventInjector(networkNamespaceOf: namespace.pid)
        defer { injector.close() }
        try injector.send(UeventInjector.powerSupplyChange(name: "GOOD"))
        #expect(runLoop(loop, until: { !events.isEmpty }))
        #expect(events == [.uevent(UeventInjector.powerSupplyChange(name: "GOOD"))])
        #expect(monitor.statistics.received == 1)
    }
}

