// SPDX-License-Identifier: Apache-2.0

/// A netlink socket watched on the event loop, drained on each wakeup: the shared part of the
/// uevent, rtnetlink and thermal monitors. Each wakeup reads every queued datagram and hands each
/// one, each receive-queue overflow (ENOBUFS: events were lost) and the first other receive error
/// to `received`; the monitor decides what they mean. Closing — from `received` too — stops the
/// drain before the next read.
public final class NetlinkSubscription {
    /// What a drain hands over.
    public enum Received {
        case datagram(NetlinkDatagram)
        case overflow
        case failed(SystemError)
    }

    public let socket: NetlinkSocket
    private let loop: EventLoop
    private var token: WatchToken?
    private let received: (Received) -> Void

    /// Watches `socket` on `loop`; takes it over (it is closed with the subscription).
    public init(loop: EventLoop, socket: NetlinkSocket, received: @escaping (Received) -> Void) throws {
        self.loop = loop
        self.socket = socket
        self.received = received
        token = try loop.watch(fd: socket.fileDescriptor, events: .readable) { [weak self] _ in
            self?.drain()
        }
    }

    deinit {
        close()
    }

    public var isClosed: Bool { socket.isClosed }

    /// Stops watching and closes the socket (idempotent; safe from inside `received`).
    public func close() {
        if let token {
            loop.unwatch(token)
            self.token = nil
        }
        socket.close()
    }

    /// Reads every queued datagram (public for tests that drive a monitor without the loop).
    public func drain() {
        while !socket.isClosed {
            switch socket.receive() {
            case .drained:
                return
            case .overflow:
                received(.overflow)
            case .failed(let error):
                received(.failed(error))
                return
            case .datagram(let datagram):
                received(.datagram(datagram))
            }
        }
    }
}
