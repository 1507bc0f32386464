// SPDX-License-Identifier: Apache-2.0
/// Text as a terminal shows it: how many columns it takes, cutting it to a width, and keeping
/// control characters that came from plugins (titles, log lines) from reaching the terminal.
public enum DisplayText {
    /// Columns `text` takes on a terminal: East Asian wide characters and emoji take two,
    /// combining marks none, everything else one. (A fixed table, so the result does not depend
    /// on the locale.)
    public static func width(_ text: String) -> Int {
        var total = 0
        for character in text { total += width(of: character) }
        return total
    }

    static func width(of character: Character) -> Int {
        var sawVisible = false
        for scalar in character.unicodeScalars {
            if isWide(scalar.value) { return 2 }
            if !isZeroWidth(scalar) { sawVisible = true }
        }
        return sawVisible ? 1 : 0
    }

    /// `text` cut to at most `width` columns, ending in `…` when something was cut.
    public static func cut(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        guard self.width(text) > width else { return text }
        var result = ""
        var used = 0
        for character in text {
            let w = self.width(of: character)
            if used + w > width - 1 { break }
            result.append(character)
            used += w
        }
        return result + "…"
    }

    /// `text` padded with spaces to `width` columns (never cut).
    public static func pad(_ text: String, to width: Int) -> String {
        let missing = width - self.width(text)
        return missing > 0 ? text + String(repeating: " ", count: missing) : text
    }

    /// `text` padded on the left to `width` columns.
    public static func padLeft(_ text: String, to width: Int) -> String {
        let missing = width - self.width(text)
        return missing > 0 ? String(repeating: " ", count: missing) + text : text
    }

    /// `1 job`, `2 jobs`, `0 errors`: a count and its noun, plural unless the count is one.
    public static func plural(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    /// `text` with every control character (C0, DEL, C1 — escape sequences included) replaced by
    /// `?`, and tabs and newlines by a space: what agentctl prints of text it did not write itself.
    public static func sanitized(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x09, 0x0A, 0x0D: scalars.append(" ")
            default: scalars.append(isControl(scalar) ? "?" : scalar)
            }
        }
        return String(scalars)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return true
        default: return scalar.value == 0x200B || (0xFE00...0xFE0F).contains(scalar.value)
        }
    }

    /// East Asian Wide and Fullwidth ranges and the emoji blocks (after Markus Kuhn's wcwidth).
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}

/// A line of text made of differently styled pieces, measured and cut by what is visible, and
/// coloured only at the end (so escape codes never count towards a width).
public struct StyledText: Sendable, Equatable, ExpressibleByStringLiteral {
    public struct Piece: Sendable, Equatable {
        public var text: String
        public var role: Style.Role?
    }

    public var pieces: [Piece]

    public init(_ text: String = "", _ role: Style.Role? = nil) {
        pieces = text.isEmpty ? [] : [Piece(text: text, role: role)]
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The text without styling.
    public var plain: String { pieces.map(\.text).joined() }

    /// Columns it takes.
    public var width: Int { pieces.reduce(0) { $0 + DisplayText.width($1.text) } }

    public static func + (lhs: StyledText, rhs: StyledText) -> StyledText {
        var result = lhs
        result.pieces += rhs.pieces
        return result
    }

    public static func += (lhs: inout StyledText, rhs: StyledText) {
        lhs.pieces += rhs.pieces
    }

    /// Cut to `width` columns, ending in `…` when something was cut (styled like the cut piece).
    public func cut(to width: Int) -> StyledText {
        guard self.width > width else { return self }
        guard width > 0 else { return StyledText() }
        var result = StyledText()
        var used = 0
        for piece in pieces {
            let w = DisplayText.width(piece.text)
            if used + w <= width - 1 {
                result.pieces.append(piece)
                used += w
                continue
            }
            let room = width - used
            result.pieces.append(Piece(text: DisplayText.cut(piece.text + "…", to: room), role: piece.role))
            return result
        }
        return result
    }

    /// Without trailing spaces (which only show as junk in copied or logged output).
    public func trimmingTrailingSpaces() -> StyledText {
        var result = self
        while let last = result.pieces.last {
            let trimmed = String(last.text.reversed().drop(while: { $0 == " " }).reversed())
            if trimmed.isEmpty {
                result.pieces.removeLast()
            } else {
                result.pieces[result.pieces.count - 1].text = trimmed
                break
            }
        }
        return result
    }

    /// The text with colour applied as `style` allows.
    public func rendered(_ style: Style) -> String {
        pieces.map { style.apply($0.role, $0.text) }.joined()
    }
}
