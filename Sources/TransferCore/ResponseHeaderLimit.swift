// SPDX-License-Identifier: Apache-2.0
/// The most header bytes one answer may carry. A file server's headers fit in a few kB; a server
/// sending a megabyte of them is broken or hostile, and that is a protocol fault (exit 18, not worth
/// a retry), not a network one. libcurl has its own limit (300 kB in 7.88) but reports crossing it
/// as a receive error, which reads as "network, retry": this lower limit is met first.
public struct ResponseHeaderLimit: Sendable {
    public static let maximumBytes = 64 << 10

    public private(set) var bytes = 0

    public init() {}

    /// Counts one header line as libcurl hands it over (status line and CRLF included); false once
    /// this answer's headers are over the limit. A status line starts a new answer (a redirect, a
    /// 100 Continue): each is held to the limit on its own.
    public mutating func accept(_ line: UnsafeRawBufferPointer) -> Bool {
        if line.starts(with: "HTTP/".utf8) { bytes = 0 }
        bytes += line.count
        return bytes <= Self.maximumBytes
    }
}
