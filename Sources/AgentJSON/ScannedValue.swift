// SPDX-License-Identifier: Apache-2.0

/// A JSON value as the scanner found it. Strings and numbers stay byte ranges of the input until
/// a type asks for them, as in JSONDecoder: their remaining checks (UTF-8, escapes, the number's
/// grammar and range) happen then, so a value nobody reads is accepted or refused as it would be.
enum ScannedValue {
    case null
    case bool(Bool)
    /// The number's bytes.
    case number(Range<Int>)
    /// The bytes between the quotes; `isSimple` when no backslash or control character is among them.
    case string(Range<Int>, isSimple: Bool)
    case array([ScannedValue])
    /// Keys (always `.string`) and values, alternating.
    case object([ScannedValue])

    /// JSONDecoder's words for what was found, in a type mismatch's description.
    var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .number: "number"
        case .string: "a string"
        case .array: "an array"
        case .object: "a dictionary"
        }
    }
}
