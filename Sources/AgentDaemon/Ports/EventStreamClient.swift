// SPDX-License-Identifier: Apache-2.0
import AgentSystem

/// A subscriber of the event stream as ``EventBus`` sees it: the port between fan-out and the
/// socket. ``ClientConnection`` (bounded backlog, `overflow`, drop) is the real one; daemon
/// scripts use one that writes each line down.
protocol EventStreamClient: AnyObject {
    var id: UInt64 { get }
    /// Exempts the connection from the idle timeout.
    var isStreaming: Bool { get set }
    var onClose: ((ClientConnection.CloseReason) -> Void)? { get set }
    /// Queues one event line; false when the client fell behind and was dropped (after
    /// `lastLine`).
    func stream(_ line: [UInt8], lastLine: () -> [UInt8]) -> Bool
}

extension ClientConnection: EventStreamClient {}
