// SPDX-License-Identifier: Apache-2.0
import Glibc
import CShim

/// Readiness of a file descriptor, as requested from and reported by `EventLoop.watch`.
///
/// `.hangup` and `.error` are always reported by the kernel whether asked for or not; asking for
/// `.hangup` additionally requests EPOLLRDHUP (the peer shut down its writing side).
public struct IOEvents: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Data can be read (EPOLLIN), or a listening socket has a connection to accept.
    public static let readable = IOEvents(rawValue: 1 << 0)
    /// Data can be written without blocking (EPOLLOUT).
    public static let writable = IOEvents(rawValue: 1 << 1)
    /// The peer hung up (EPOLLHUP or EPOLLRDHUP).
    public static let hangup = IOEvents(rawValue: 1 << 2)
    /// An error condition (EPOLLERR).
    public static let error = IOEvents(rawValue: 1 << 3)
    /// Urgent or exceptional data (EPOLLPRI), e.g. a sysfs attribute change.
    public static let priority = IOEvents(rawValue: 1 << 4)

    /// The epoll interest mask for these events.
    var epollMask: UInt32 {
        var mask: UInt32 = 0
        if contains(.readable) { mask |= CSHIM_EPOLLIN }
        if contains(.writable) { mask |= CSHIM_EPOLLOUT }
        if contains(.hangup) { mask |= CSHIM_EPOLLRDHUP }
        if contains(.priority) { mask |= CSHIM_EPOLLPRI }
        return mask
    }

    /// Translates a readiness mask reported by epoll.
    init(epollMask mask: UInt32) {
        var events: IOEvents = []
        if mask & CSHIM_EPOLLIN != 0 { events.insert(.readable) }
        if mask & CSHIM_EPOLLOUT != 0 { events.insert(.writable) }
        if mask & (CSHIM_EPOLLHUP | CSHIM_EPOLLRDHUP) != 0 { events.insert(.hangup) }
        if mask & CSHIM_EPOLLERR != 0 { events.insert(.error) }
        if mask & CSHIM_EPOLLPRI != 0 { events.insert(.priority) }
        self = events
    }

    public var description: String {
        var names: [String] = []
        if contains(.readable) { names.append("readable") }
        if contains(.writable) { names.append("writable") }
        if contains(.hangup) { names.append("hangup") }
        if contains(.error) { names.append("error") }
        if contains(.priority) { names.append("priority") }
        return "[" + names.joined(separator: ", ") + "]"
    }
}
