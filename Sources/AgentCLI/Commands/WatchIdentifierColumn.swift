// SPDX-License-Identifier: Apache-2.0

/// The identifier column of a `watch` section (DESIGN §8: the identifier column is never cut).
/// It is as wide as the section's longest identifier that takes at most half the terminal (16
/// columns at least), so that one long identifier does not push every row's kind and reason
/// off the screen. A longer identifier gets lines of its own, wrapped at the terminal's width
/// and never cut; the rest of its row follows on the next line, under the column.
struct WatchIdentifierColumn {
    let width: Int
    let terminal: Int?

    init(_ identifiers: [String], terminal: Int?) {
        let widths = identifiers.map { DisplayText.width(DisplayText.sanitized($0)) }
        self.terminal = terminal
        guard let terminal else {
            width = widths.max() ?? 0
            return
        }
        let most = max(16, terminal / 2)
        width = widths.filter { $0 <= most }.max() ?? most
    }

    /// The lines an identifier takes above its row (none when it fits the column), and the
    /// start of the row itself: the identifier padded to the column, or blanks under it.
    func lead(_ identifier: String, _ role: Style.Role? = nil) -> (above: [StyledText], row: StyledText) {
        let text = DisplayText.sanitized(identifier)
        guard DisplayText.width(text) > width else {
            return ([], StyledText("  ") + StyledText(DisplayText.pad(text, to: width), role))
        }
        let room = max(1, (terminal ?? Int.max) - 2)
        var above: [StyledText] = []
        var line = ""
        for character in text {
            if DisplayText.width(line) + DisplayText.width(String(character)) > room {
                above.append(StyledText("  ") + StyledText(line, role))
                line = ""
            }
            line.append(character)
        }
        if !line.isEmpty { above.append(StyledText("  ") + StyledText(line, role)) }
        return (above, StyledText(String(repeating: " ", count: 2 + width)))
    }
}
