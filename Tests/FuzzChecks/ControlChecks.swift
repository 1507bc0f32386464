// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import AgentSystem

/// Control-socket frames: the framer gives the same frames whatever the chunking, no line over
/// its limit and none with a `\n`; a line that decodes as a request re-encodes to one line that
/// decodes to an equal request.
enum ControlChecks {
    static func check(_ bytes: [UInt8]) -> String? {
        let limit = 16 + Int(bytes.first ?? 0) * 4
        let whole = frames(of: [bytes[...]], limit: limit)
        let chunked = frames(of: Chunking.split(bytes, seed: bytes.last ?? 0), limit: limit)
        if whole != chunked { return "chunking changed the frames: \(whole) then \(chunked)" }
        for case .line(let line) in whole {
            if line.count > limit || line.contains(0x0A) { return "a frame of \(line.count) bytes (limit \(limit))" }
        }
        for line in frames(of: [bytes[...]], limit: 65536).compactMap(lineBytes) + [bytes] {
            if let failure = requestRoundTrip(line) { return failure }
        }
        return nil
    }

    static func frames(of chunks: [ArraySlice<UInt8>], limit: Int) -> [LineFramer.Frame] {
        var framer = LineFramer(maxLineBytes: limit)
        var out: [LineFramer.Frame] = []
        for chunk in chunks {
            framer.append(contentsOf: chunk)
            while let frame = framer.next() { out.append(frame) }
        }
        return out
    }

    static func lineBytes(_ frame: LineFramer.Frame) -> [UInt8]? {
        if case .line(let line) = frame { line } else { nil }
    }

    static func requestRoundTrip(_ line: [UInt8]) -> String? {
        guard let request = try? MessageCoding.decode(ControlRequest.self, from: line) else { return nil }
        guard let encoded = try? MessageCoding.encodeLine(request) else { return "\(request) does not encode" }
        if encoded.contains(0x0A) { return "\(request) encodes with a newline" }
        guard let again = try? MessageCoding.decode(ControlRequest.self, from: encoded) else {
            return "\(request) re-encoded as \(String(decoding: encoded, as: UTF8.self)) does not decode"
        }
        return again == request ? nil : "\(request) re-encoded decodes as \(again)"
    }
}
