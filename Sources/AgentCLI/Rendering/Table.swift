/// A plain-text table for people: columns padded to their widest cell; the last column is cut
/// to the terminal width (with `…`) so rows never wrap.
public struct Table {
    public var headers: [String]
    public var rows: [[String]]

    public init(headers: [String], rows: [[String]]) {
        self.headers = headers
        self.rows = rows
    }

    public func render(width: Int) -> String {
        let all = [headers] + rows
        let columns = headers.count
        var widths = (0..<columns).map { column in all.map { $0[column].count }.max() ?? 0 }
        let fixed = widths.dropLast().reduce(0, +) + 2 * (columns - 1)
        widths[columns - 1] = max(8, min(widths[columns - 1], width - fixed))
        return all.map { row in
            row.enumerated().map { column, cell in
                if column == columns - 1 { return Self.cut(cell, widths[column]) }
                return cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    private static func cut(_ text: String, _ width: Int) -> String {
        text.count <= width ? text : String(text.prefix(width - 1)) + "…"
    }
}
