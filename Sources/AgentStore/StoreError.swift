// SPDX-License-Identifier: Apache-2.0
/// A failed SQLite operation: what was attempted, on which file, and SQLite's own message.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var code: Int32
    public var message: String

    public var description: String {
        "\(path): \(operation) failed: \(message) (sqlite code \(code))"
    }
}
