// SPDX-License-Identifier: Apache-2.0
/// A run's `RESULT=` that a desktop notification may offer to open (DESIGN §3 `Notify=`): an
/// absolute path or a URL, handed to `xdg-open` as its one argument (never through a shell).
///
/// A URL is `scheme://…` (RFC 3986's scheme characters) or `mailto:…`; a path starts with `/`.
/// Neither may hold whitespace other than a path's spaces, nor control characters, and a path
/// may not hold a newline — so a result such as `Saved 3 files`, `note: done` or a multi-line
/// report is shown but offers no Open. The argument never starts with `-`: xdg-open cannot take
/// it for an option.
public struct OpenableResult: Hashable, Sendable {
    public let target: String

    public init?(_ result: String?) {
        guard let result, !result.isEmpty, result.utf8.count <= 4096,
              !result.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else { return nil }
        if result.hasPrefix("/") {
            target = result
            return
        }
        guard !result.contains(" "), Self.isURL(result) else { return nil }
        target = result
    }

    private static func isURL(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        if bytes.count > 7, String(decoding: bytes.prefix(7), as: UTF8.self).lowercased() == "mailto:" { return true }
        // scheme "://" something: the scheme is a letter, then letters, digits, + - .
        var index = 0
        while index < bytes.count, isSchemeByte(bytes[index], first: index == 0) { index += 1 }
        guard index > 0, index + 3 < bytes.count, bytes[index] == UInt8(ascii: ":"),
              bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/") else { return false }
        return true
    }

    private static func isSchemeByte(_ byte: UInt8, first: Bool) -> Bool {
        let letter = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
        if first { return letter }
        return letter || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }
}
