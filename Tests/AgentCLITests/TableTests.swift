// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCLI

/// Tables for people: aligned, never wider than the terminal, shrinking free text first.
@Suite struct TableTests {
    @Test func columnsArePaddedToTheirWidestCellAndTheLastIsNotPadded() {
        let table = Table(headers: ["ID", "STATE"], rows: [["local.a", "registered"], ["b", "x"]])
        #expect(table.render(width: 80) == "ID       STATE\nlocal.a  registered\nb        x")
    }

    @Test func tooWideTheWidestFlexibleColumnShrinksFirst() {
        let table = Table(columns: [.fixed("RUN"), "IDENTIFIER", "TITLE", .fixed("LEFT")],
                          rows: [["r000001", "local.short", Table.Cell(String(repeating: "t", count: 60)), "in 4 min"]])
        let widths = table.columnWidths(fitting: 60)
        #expect(widths == [7, 11, 60 - 7 - 11 - 8 - 6, 8])
        let lines = table.render(width: 60).split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 60 })
        #expect(lines[1].hasSuffix("…  in 4 min"))
        #expect(lines[1].contains("local.short"))
    }

    @Test func flexibleColumnsShrinkTogetherOnceEquallyWide() {
        let table = Table(columns: ["A", "B"], rows: [[Table.Cell(String(repeating: "a", count: 30)), Table.Cell(String(repeating: "b", count: 20))]])
        #expect(table.columnWidths(fitting: 32) == [15, 15])
    }

    @Test func fixedColumnsAreNeverCutEvenIfTheTableCannotFit() {
        let table = Table(columns: [.fixed("RUN"), Table.Column("NAME", minimumWidth: 8)],
                          rows: [["r000001", "a-very-long-identifier"]])
        #expect(table.columnWidths(fitting: 10) == [7, 8])
    }

    @Test func withoutAWidthNothingIsCut() {
        let long = String(repeating: "x", count: 300)
        let table = Table(headers: ["ID", "STATE"], rows: [["a", long]])
        #expect(table.render(width: nil).hasSuffix(long))
    }

    @Test func wideCharactersCountTwoColumns() {
        let table = Table(headers: ["TITLE", "X"], rows: [["写真", "1"], ["ab", "2"]])
        #expect(table.render(width: 80) == "TITLE  X\n写真   1\nab     2")
    }

    @Test func theLastColumnIsCutToTheWidth() {
        let table = Table(headers: ["ID", "STATE"], rows: [["local.a", "registered"], ["b", String(repeating: "x", count: 50)]])
        let lines = table.render(width: 30).split(separator: "\n")
        #expect(lines[0] == "ID       STATE")
        #expect(lines[1] == "local.a  registered")
        #expect(lines[2].count == 30)
        #expect(lines[2].hasSuffix("…"))
    }

    @Test func controlCharactersInCellsAreReplaced() {
        let table = Table(headers: ["T"], rows: [["a\u{1B}[31mb\tc"]])
        #expect(table.render(width: nil) == "T\na?[31mb c")
    }
}

/// Progress bars: `[#####-----] 42%`.
@Suite struct ProgressBarTests {
    @Test func barsFillAndCountDown() {
        #expect(ProgressBar.render(fraction: 0.42, cells: 10) == "[####------] 42%")
        #expect(ProgressBar.render(fraction: 0.5, cells: 10) == "[#####-----] 50%")
        #expect(ProgressBar.render(fraction: 0, cells: 4) == "[----] 0%")
        #expect(ProgressBar.render(fraction: 1, cells: 4) == "[####] 100%")
    }

    @Test func nearlyDoneIsNotShownAsDone() {
        #expect(ProgressBar.render(fraction: 0.999, cells: 10) == "[#########-] 99%")
    }

    @Test func floatingPointDoesNotLoseAPercent() {
        #expect(ProgressBar.render(fraction: 0.29, cells: 100).hasSuffix("] 29%"))
        #expect(ProgressBar.render(fraction: 0.57, cells: 100).hasSuffix("] 57%"))
    }

    @Test func outOfRangeValuesAreClamped() {
        #expect(ProgressBar.render(fraction: -1, cells: 4) == "[----] 0%")
        #expect(ProgressBar.render(fraction: 7, cells: 4) == "[####] 100%")
        #expect(ProgressBar.render(fraction: .nan, cells: 4) == "[----] 0%")
    }

    @Test func theBarTakesAThirdOfTheLineBetweenTenAndFortyCells() {
        #expect(ProgressBar.cells(forLineWidth: 99) == 33)
        #expect(ProgressBar.cells(forLineWidth: 20) == 10)
        #expect(ProgressBar.cells(forLineWidth: 300) == 40)
        #expect(ProgressBar.render(fraction: 1, cells: 33).count == ProgressBar.width(cells: 33))
    }
}
