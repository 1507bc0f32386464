// SPDX-License-Identifier: Apache-2.0
/// A progress bar for a terminal line: `[#####-----] 42%`.
public enum ProgressBar {
    /// The bar for `fraction` (clamped to 0…1; NaN counts as 0) with `cells` cells between the
    /// brackets, then the percentage. Both round down, so a bar is full and says 100% only when the
    /// work is done.
    public static func render(fraction: Double, cells: Int) -> String {
        let value = fraction.isNaN ? 0 : min(1, max(0, fraction))
        let cells = max(1, cells)
        // The epsilon keeps 0.29 (28.999… × 100) at 29%.
        let filled = min(cells, Int(value * Double(cells) + 1e-9))
        let percent = min(100, Int(value * 100 + 1e-9))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: cells - filled) + "] \(percent)%"
    }

    /// Columns a bar with `cells` cells takes at most (`[`, cells, `] 100%`).
    public static func width(cells: Int) -> Int { max(1, cells) + 7 }

    /// How many cells a bar gets on a line `lineWidth` columns wide: a third of the line, between
    /// 10 and 40 cells.
    public static func cells(forLineWidth lineWidth: Int) -> Int {
        min(40, max(10, lineWidth / 3))
    }
}
