// SPDX-License-Identifier: Apache-2.0
import CSQLite

// SQLite copies bound text immediately with this destructor value.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared statement: bind, step, read columns. Finalized when released.
public final class Statement {
    private let database: Database
    private let handle: OpaquePointer

    init(database: Database, handle: OpaquePointer) {
        self.database = database
        self.handle = handle
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds values to `?` parameters in order (1-based in SQLite). `nil` binds NULL.
    @discardableResult
    public func bind(_ values: [StoreValue?]) throws -> Statement {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case nil: rc = sqlite3_bind_null(handle, index)
            case .integer(let number)?: rc = sqlite3_bind_int64(handle, index, number)
            case .real(let number)?: rc = sqlite3_bind_double(handle, index, number)
            case .text(let text)?: rc = Self.bind(text, to: handle, at: index)
            }
            guard rc == SQLITE_OK else { throw database.error("bind", rc) }
        }
        return self
    }

    /// Advances; `true` while a row is available.
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error("step", rc)
        }
    }

    /// Runs a statement that returns no rows.
    public func run(_ values: [StoreValue?] = []) throws {
        // Reset also on failure, so a failed write leaves no statement holding the transaction.
        defer { sqlite3_reset(handle) }
        try bind(values)
        while try step() {}
    }

    /// Ends the statement's current execution. A cached SELECT read only up to its first row
    /// keeps a read transaction (and, in WAL mode, the WAL) pinned until this is called.
    public func reset() {
        sqlite3_reset(handle)
    }

    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    public func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Text is bound with its length, not up to its first NUL: a plugin's output line may hold
    /// one, and what follows it (the rest of a log tail) must not be lost.
    private static func bind(_ text: String, to handle: OpaquePointer, at index: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_text(handle, index, "", 0, transient)
            }
            return sqlite3_bind_text64(handle, index, base, sqlite3_uint64(bytes.count), transient, UInt8(SQLITE_UTF8))
        }
    }
}

/// A value bound to a statement parameter.
public enum StoreValue: Sendable, Hashable {
    case integer(Int64)
    case real(Double)
    case text(String)
}
