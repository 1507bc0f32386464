// SPDX-License-Identifier: Apache-2.0
/// A failed SQLite operation: what was attempted, on which file, and SQLite's own message.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public var operation: String
    public var path: String
    /// SQLite's extended result code.
    public var code: Int32
    public var message: String
    /// The errno behind an I/O error, 0 when there is none.
    public var systemErrno: Int32

    public init(operation: String, path: String, code: Int32, message: String, systemErrno: Int32 = 0) {
        self.operation = operation
        self.path = path
        self.code = code
        self.message = message
        self.systemErrno = systemErrno
    }

    public var description: String {
        "\(path): \(operation) failed: \(message) (sqlite code \(code))"
    }

    /// What kind of trouble this is, for deciding whether to retry and what to tell people.
    public var kind: StoreErrorKind { StoreErrorKind(code: code, systemErrno: systemErrno) }
}

/// Why a write failed, in the terms the agent acts on.
public enum StoreErrorKind: Sendable, Hashable {
    /// The file system is full (SQLITE_FULL, or ENOSPC/EDQUOT behind an I/O error).
    case full
    /// Another process holds a lock (SQLITE_BUSY, SQLITE_LOCKED).
    case locked
    /// The files cannot be written: read-only mount, immutable file, permissions, I/O error.
    case notWritable
    /// The database file is damaged (SQLITE_CORRUPT, SQLITE_NOTADB): nothing written to it can
    /// be trusted until it is replaced.
    case damaged
    /// Anything else (a constraint, a bug): retrying does not help.
    case permanent

    // Primary result codes (the low byte of an extended code) and errno values, spelled here so
    // this type needs no C import.
    private static let busy: Int32 = 5, lockedCode: Int32 = 6, readOnly: Int32 = 8, ioError: Int32 = 10
    private static let fullCode: Int32 = 13, cantOpen: Int32 = 14, protocolCode: Int32 = 15, perm: Int32 = 3
    private static let corrupt: Int32 = 11, notADatabase: Int32 = 26
    private static let enospc: Int32 = 28, edquot: Int32 = 122

    public init(code: Int32, systemErrno: Int32) {
        switch code & 0xff {
        case Self.fullCode: self = .full
        case Self.busy, Self.lockedCode, Self.protocolCode: self = .locked
        case Self.ioError where systemErrno == Self.enospc || systemErrno == Self.edquot: self = .full
        case Self.readOnly, Self.ioError, Self.cantOpen, Self.perm: self = .notWritable
        case Self.corrupt, Self.notADatabase: self = .damaged
        default: self = .permanent
        }
    }

    /// Whether the same write may succeed later (after space is freed, a lock released, a
    /// file made writable again, a damaged file replaced): until then requests are refused and
    /// records wait, rather than being given up one by one.
    public var isTransient: Bool { self != .permanent }
}
