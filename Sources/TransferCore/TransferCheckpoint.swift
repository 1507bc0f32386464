// SPDX-License-Identifier: Apache-2.0
/// What identifies the version of the file being downloaded: a strong ETag or, without one, the
/// Last-Modified date. Sent back as `If-Range`, so a server whose file changed answers with the whole
/// new file (200) instead of the rest of the old one.
public enum Validator: Equatable, Sendable {
    case etag(String)
    case lastModified(String)

    /// The validator of a response: its ETag if strong (a weak `W/` one cannot be used in If-Range,
    /// RFC 9110 §13.1.5), else its Last-Modified, else none.
    public static func of(etag: String?, lastModified: String?) -> Validator? {
        if let etag = etag?.trimmed, !etag.isEmpty, !etag.hasPrefix("W/") { return .etag(etag) }
        if let date = lastModified?.trimmed, !date.isEmpty { return .lastModified(date) }
        return nil
    }

    /// The `If-Range` header value.
    public var headerValue: String {
        switch self {
        case .etag(let value), .lastModified(let value): value
        }
    }
}

/// The plugin's `CHECKPOINT=` value: `transfer/1 OFFSET etag VALUE` (or `last-modified VALUE`, or
/// nothing after the offset). The offset is informational — a resume starts from the size of
/// `DEST.part` on disk — the validator is what makes resuming safe.
public struct TransferCheckpoint: Equatable, Sendable {
    static let tag = "transfer/1"
    /// The agent rejects checkpoints over 1024 bytes; a longer validator is left out (no resume).
    static let maxBytes = 1024

    public let offset: Int64
    public let validator: Validator?

    public init(offset: Int64, validator: Validator?) {
        self.offset = offset
        self.validator = validator
    }

    public var encoded: String {
        let base = "\(Self.tag) \(offset)"
        let full: String
        switch validator {
        case .etag(let value): full = base + " etag " + value
        case .lastModified(let value): full = base + " last-modified " + value
        case nil: full = base
        }
        // Keep to one line and the agent's limit, or carry no validator at all.
        return full.utf8.count <= Self.maxBytes && !full.contains("\n") ? full : base
    }

    /// Whether a next run can resume from it: it carries a validator (one that fits).
    public var resumable: Bool {
        TransferCheckpoint.decode(encoded)?.validator != nil
    }

    /// nil for anything this plugin did not write (another plugin's checkpoint, an older format).
    public static func decode(_ text: String) -> TransferCheckpoint? {
        let parts = text.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == tag, let offset = Int64(parts[1]), offset >= 0 else { return nil }
        guard parts.count == 4, !parts[3].isEmpty else { return TransferCheckpoint(offset: offset, validator: nil) }
        switch parts[2] {
        case "etag": return TransferCheckpoint(offset: offset, validator: .etag(String(parts[3])))
        case "last-modified": return TransferCheckpoint(offset: offset, validator: .lastModified(String(parts[3])))
        default: return TransferCheckpoint(offset: offset, validator: nil)
        }
    }
}

extension String {
    /// Without leading and trailing blanks and line ends (by scalar: "\r\n" is one Character).
    var trimmed: String {
        let blank: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        var scalars = Substring(self).unicodeScalars
        while let first = scalars.first, blank(first) { scalars.removeFirst() }
        while let last = scalars.last, blank(last) { scalars.removeLast() }
        return String(scalars)
    }
}
