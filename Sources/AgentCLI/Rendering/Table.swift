// SPDX-License-Identifier: Apache-2.0
/// A plain-text table for people: columns padded to their widest cell, two spaces apart, never
/// wider than the terminal.
///
/// When the table is too wide, the widest *flexible* column (free text: identifiers, titles,
/// states, paths) gives up a column at a time until the table fits or every flexible column is
/// down to its minimum; cut cells end in `…`. Fixed columns (run ids, times, counts) are never cut.
/// The last column is not padded, so lines carry no trailing blanks. Colour is applied after
/// measuring, so it never upsets the alignment.
public struct Table: Sendable {
    /// A column heading and how it may shrink.
    public struct Column: Sendable, ExpressibleByStringLiteral {
        public var header: String
        /// Whether cells may be cut to make the table fit.
        public var flexible: Bool
        /// The narrowest a flexible column gets (its header and `…` still fit).
        public var minimumWidth: Int

        public init(_ header: String, flexible: Bool = true, minimumWidth: Int = 8) {
            self.header = header
            self.flexible = flexible
            self.minimumWidth = minimumWidth
        }

        public init(stringLiteral value: String) {
            self.init(value)
        }

        /// A column that is never cut.
        public static func fixed(_ header: String) -> Column {
            Column(header, flexible: false)
        }
    }

    /// One cell: its text (sanitised of control characters) and the role it is coloured with.
    public struct Cell: Sendable, ExpressibleByStringLiteral {
        public var text: String
        public var role: Style.Role?

        public init(_ text: String, _ role: Style.Role? = nil) {
            self.text = DisplayText.sanitized(text)
            self.role = role
        }

        public init(stringLiteral value: String) {
            self.init(value)
        }
    }

    public var columns: [Column]
    public var rows: [[Cell]]
    /// Role of the header line (dim on a terminal, by default).
    public var headerRole: Style.Role? = .dim

    public init(columns: [Column], rows: [[Cell]]) {
        self.columns = columns
        self.rows = rows
    }

    /// A table of plain strings where every column is flexible.
    public init(headers: [String], rows: [[String]]) {
        self.init(columns: headers.map { Column($0) }, rows: rows.map { $0.map { Cell($0) } })
    }

    /// The column widths the table is drawn with at `width` terminal columns (nil: no limit).
    public func columnWidths(fitting width: Int?) -> [Int] {
        var widths = columns.indices.map { column in
            rows.reduce(DisplayText.width(columns[column].header)) { widest, row in
                column < row.count ? max(widest, DisplayText.width(row[column].text)) : widest
            }
        }
        guard let width, !columns.isEmpty else { return widths }
        var excess = widths.reduce(0, +) + 2 * (columns.count - 1) - width
        while excess > 0 {
            // The widest flexible column still above its minimum gives up one column.
            var widest: Int?
            for column in columns.indices where columns[column].flexible && widths[column] > minimum(column) {
                if widest.map({ widths[column] > widths[$0] }) ?? true { widest = column }
            }
            guard let column = widest else { break }
            widths[column] -= 1
            excess -= 1
        }
        return widths
    }

    private func minimum(_ column: Int) -> Int {
        max(columns[column].minimumWidth, min(DisplayText.width(columns[column].header), 8))
    }

    /// The table as lines joined by `\n` (no trailing newline).
    public func render(width: Int?, style: Style = .plain) -> String {
        let widths = columnWidths(fitting: width)
        let header = columns.map { Cell($0.header, headerRole) }
        return ([header] + rows).map { row in
            var line = ""
            for column in columns.indices {
                let cell = column < row.count ? row[column] : Cell("")
                let text = DisplayText.cut(cell.text, to: widths[column])
                let isLast = column == columns.count - 1
                line += style.apply(cell.role, text)
                if !isLast {
                    line += String(repeating: " ", count: widths[column] - DisplayText.width(text) + 2)
                }
            }
            return line
        }.joined(separator: "\n")
    }
}
