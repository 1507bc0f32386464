// SPDX-License-Identifier: Apache-2.0
/// `RequiresNetwork=`: `no` (the default), `yes` (a default route), or `unmetered` (a default
/// route on a network NetworkManager does not call metered). systemd's booleans still spell
/// `yes` and `no`, so files written before `unmetered` existed read as they did.
public enum NetworkRequirement: String, Sendable, Hashable, CaseIterable {
    case no
    case yes
    case unmetered

    /// The spellings an error message offers.
    static let validSpellings = "yes, no, unmetered; also true, false, on, off, 1, 0"

    /// Parses a value: `unmetered` (any case) or a boolean.
    public static func parse(_ text: String) -> NetworkRequirement? {
        if text.utf8.count == 9, TextBytes.asciiLowercased(text) == "unmetered" { return .unmetered }
        return BooleanValue.parse(text).map { $0 ? .yes : .no }
    }
}

extension KeyReader {
    /// `RequiresNetwork=`; a bad value is an error naming the valid ones, and the default stands.
    mutating func networkRequirement(_ key: String) -> NetworkRequirement {
        guard let assignment = scalar(key) else { return .no }
        guard let parsed = NetworkRequirement.parse(assignment.value) else {
            error(assignment.line, "\(key): \(TextBytes.quoted(assignment.value)) is not a network requirement "
                + "(\(NetworkRequirement.validSpellings))")
            return .no
        }
        return parsed
    }
}
