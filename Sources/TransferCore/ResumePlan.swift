// SPDX-License-Identifier: Apache-2.0
/// How a run starts: from zero, or with `Range: bytes=OFFSET-` and `If-Range: VALIDATOR` when a
/// `.part` file and a checkpoint with a validator are there. Without a validator the bytes on disk
/// cannot be tied to a version of the file, so they are not trusted.
public enum ResumePlan: Equatable, Sendable {
    case fresh
    case resume(offset: Int64, ifRange: Validator)

    public static func decide(partSize: Int64?, checkpoint: TransferCheckpoint?) -> ResumePlan {
        guard let size = partSize, size > 0, let validator = checkpoint?.validator else { return .fresh }
        return .resume(offset: size, ifRange: validator)
    }

    public var offset: Int64 {
        if case .resume(let offset, _) = self { return offset }
        return 0
    }
}

/// What to do with the body of the response that came back.
public enum BodyPlacement: Equatable, Sendable {
    /// Append after the bytes on disk (206 for the range asked for).
    case append(at: Int64)
    /// Truncate `.part` and write from zero: a fresh download, or a 200 to a range request
    /// (If-Range did not match: the file changed, or the server ignores ranges).
    case restart
    /// A 206 for some other range than asked for: never spliced.
    case unexpected(String)

    public static func decide(plan: ResumePlan, status: Int, contentRange: String?) -> BodyPlacement {
        if status == 206 {
            guard case .resume(let offset, _) = plan else { return .unexpected("a partial answer (206) to a request for the whole file") }
            guard let start = ContentRange.start(contentRange), start == offset else {
                return .unexpected("a partial answer (206) for \(contentRange ?? "no Content-Range"), not for bytes \(offset)-")
            }
            return .append(at: offset)
        }
        return .restart
    }
}

/// `Content-Range: bytes START-END/TOTAL`.
public enum ContentRange {
    public static func start(_ header: String?) -> Int64? {
        parts(header).map(\.start)
    }

    /// TOTAL, nil when `*` or malformed.
    public static func total(_ header: String?) -> Int64? {
        parts(header)?.total
    }

    static func parts(_ header: String?) -> (start: Int64, total: Int64?)? {
        guard let header = header?.trimmed, header.hasPrefix("bytes ") else { return nil }
        let spec = header.dropFirst("bytes ".count)
        let slash = spec.split(separator: "/", maxSplits: 1)
        guard slash.count == 2 else { return nil }
        let range = slash[0].split(separator: "-", maxSplits: 1)
        guard range.count == 2, let start = Int64(range[0]), start >= 0 else { return nil }
        return (start, Int64(slash[1]))
    }
}
