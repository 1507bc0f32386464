// SPDX-License-Identifier: Apache-2.0
/// systemd's boolean syntax.
///
/// Accepted, case-insensitively: `yes`/`no`, `true`/`false`, `on`/`off`, `1`/`0`, and — as
/// systemd's `parse_boolean()` also does — the one-letter forms `y`/`n` and `t`/`f`.
public enum BooleanValue {
    /// What an error message offers as valid spellings.
    public static let validSpellings = "yes, no, true, false, on, off, 1, 0"

    public static func parse(_ text: String) -> Bool? {
        // Longest keyword is 5 bytes; anything longer is certainly not a boolean, and checking
        // first keeps a 1 MiB value from being lower-cased.
        guard text.utf8.count <= 5 else { return nil }
        switch TextBytes.asciiLowercased(text) {
        case "1", "yes", "y", "true", "t", "on": return true
        case "0", "no", "n", "false", "f", "off": return false
        default: return nil
        }
    }
}
