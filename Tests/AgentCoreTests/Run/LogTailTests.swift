// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

@Test func theTailKeepsLinesInOrderUntilFull() {
    var tail = LogTail(maxLines: 3)
    tail.append("a")
    tail.append("b")
    #expect(tail.lines == ["a", "b"])
    #expect(tail.droppedLines == 0)
    #expect(tail.count == 2)
    #expect(tail.byteCount == 2)
}

@Test func theRingWrapsAroundKeepingTheNewestLines() {
    var tail = LogTail(maxLines: 3)
    for index in 1...10 { tail.append("line \(index)") }
    #expect(tail.lines == ["line 8", "line 9", "line 10"])
    #expect(tail.droppedLines == 7)
    #expect(tail.count == 3)
    #expect(tail.byteCount == "line 8line 9line 10".utf8.count)
}

@Test func everyWrapPositionReadsOldestFirst() {
    for total in 0...12 {
        var tail = LogTail(maxLines: 4)
        for index in 0..<total { tail.append(String(index)) }
        let expected = (max(0, total - 4)..<total).map(String.init)
        #expect(tail.lines == expected, "after \(total) lines")
        #expect(tail.droppedLines == max(0, total - 4))
    }
}

@Test func theDefaultsAreFiftyLinesAnd64KiB() {
    var tail = LogTail()
    #expect(tail.maxLines == 50)
    #expect(tail.maxBytes == 65_536)
    for index in 0..<120 { tail.append("\(index)") }
    #expect(tail.count == 50)
    #expect(tail.lines.first == "70")
    #expect(tail.droppedLines == 70)
}

@Test func theByteCapEvictsOldLinesBeforeTheLineCapIsReached() {
    var tail = LogTail(maxLines: 50, maxBytes: 10)
    tail.append("aaaa")
    tail.append("bbbb")
    tail.append("cccc")  // 12 bytes: "aaaa" must go
    #expect(tail.lines == ["bbbb", "cccc"])
    #expect(tail.byteCount == 8)
    #expect(tail.droppedLines == 1)
    tail.append("dddddddddd")  // exactly the cap: it stays alone
    #expect(tail.lines == ["dddddddddd"])
    #expect(tail.droppedLines == 3)
}

@Test func fullSizedLinesStayUnderTheDefaultByteCap() {
    var tail = LogTail()
    let line = String(repeating: "x", count: 4096)
    for _ in 0..<100 { tail.append(line) }
    #expect(tail.count == 16)  // 16 × 4096 = 64 KiB
    #expect(tail.byteCount <= 65_536)
    #expect(tail.droppedLines == 84)
}

@Test func aLineLongerThanTheByteCapIsCutAtACharacterBoundary() {
    var tail = LogTail(maxLines: 5, maxBytes: 5)
    tail.append("ab")
    tail.append("xyz€€")  // 3 + 3 + 3 bytes; 5 bytes would split the first €: "xyz" is kept
    #expect(tail.lines == ["ab", "xyz"])
    #expect(tail.byteCount == 5)
    #expect(tail.droppedLines == 0)
    tail.append("0123456789")  // cut to the whole cap, it evicts everything before it
    #expect(tail.lines == ["01234"])
    #expect(tail.byteCount == 5)
    #expect(tail.droppedLines == 2)
}

@Test func aZeroSizedTailDropsEverything() {
    for (lines, bytes) in [(0, 100), (10, 0), (-1, -1)] {
        var tail = LogTail(maxLines: lines, maxBytes: bytes)
        tail.append("x")
        tail.append("")
        #expect(tail.lines.isEmpty)
        #expect(tail.droppedLines == 2)
    }
}

@Test func emptyLinesAreKept() {
    var tail = LogTail(maxLines: 2, maxBytes: 1)
    tail.append("")
    tail.append("")
    tail.append("")
    #expect(tail.lines == ["", ""])
    #expect(tail.droppedLines == 1)
}
