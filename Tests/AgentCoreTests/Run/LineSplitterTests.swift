// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// Feeds `chunks` and then finishes, collecting the emitted lines as text.
private func split(_ chunks: [[UInt8]], maxLineBytes: Int = 4096) -> (lines: [String], LineSplitter) {
    var splitter = LineSplitter(maxLineBytes: maxLineBytes)
    var lines: [String] = []
    for chunk in chunks {
        splitter.feed(chunk) { lines.append(String(decoding: $0, as: UTF8.self)) }
    }
    splitter.finish { lines.append(String(decoding: $0, as: UTF8.self)) }
    return (lines, splitter)
}

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

@Test func completeLinesAreEmittedWithoutTheirNewline() {
    let (lines, splitter) = split([bytes("one\ntwo\nthree\n")])
    #expect(lines == ["one", "two", "three"])
    #expect(splitter.lines == 3)
    #expect(splitter.truncatedLines == 0)
}

@Test func emptyLinesAreLinesToo() {
    let (lines, splitter) = split([bytes("\n\na\n\n")])
    #expect(lines == ["", "", "a", ""])
    #expect(splitter.lines == 4)
}

@Test func aLineSplitAcrossChunksIsReassembled() {
    let (lines, _) = split([bytes("PROG"), bytes("RESS=4"), bytes("2/100\nTI"), bytes("TLE=x\n")])
    #expect(lines == ["PROGRESS=42/100", "TITLE=x"])
}

@Test func everyChunkBoundaryGivesTheSameLines() {
    let input = bytes("alpha\n\nbeta gamma\r\ndelta\nlast")
    let expected = ["alpha", "", "beta gamma\r", "delta", "last"]
    for cut in 0...input.count {
        let (lines, splitter) = split([Array(input[..<cut]), Array(input[cut...])])
        #expect(lines == expected, "cut at \(cut)")
        #expect(splitter.lines == 5)
    }
}

@Test func byteAtATimeFeedingGivesTheSameLines() {
    let input = bytes("a\nbb\n\nccc")
    let (lines, _) = split(input.map { [$0] })
    #expect(lines == ["a", "bb", "", "ccc"])
}

@Test func aPartialLastLineIsEmittedAtFinish() {
    var splitter = LineSplitter()
    var lines: [String] = []
    splitter.feed(bytes("done\npartial")) { lines.append(String(decoding: $0, as: UTF8.self)) }
    #expect(lines == ["done"])
    splitter.finish { lines.append(String(decoding: $0, as: UTF8.self)) }
    #expect(lines == ["done", "partial"])
    #expect(splitter.lines == 2)
}

@Test func finishWithNothingPendingEmitsNothing() {
    let (lines, splitter) = split([bytes("a\n")])
    #expect(lines == ["a"])
    #expect(splitter.lines == 1)
    let (none, empty) = split([])
    #expect(none.isEmpty)
    #expect(empty.lines == 0)
}

@Test func emptyChunksChangeNothing() {
    let (lines, _) = split([[], bytes("x"), [], bytes("\n"), []])
    #expect(lines == ["x"])
}

@Test func aLineOfExactlyTheLimitIsNotTruncated() {
    let line = String(repeating: "a", count: 8)
    for cut in 0...9 {
        let input = bytes(line + "\n")
        let (lines, splitter) = split([Array(input[..<cut]), Array(input[cut...])], maxLineBytes: 8)
        #expect(lines == [line], "cut at \(cut)")
        #expect(splitter.truncatedLines == 0)
    }
}

@Test func aLineOverTheLimitIsCutCountedAndTheRestDiscarded() {
    for cut in 0...12 {
        let input = bytes("abcdefghij\nnext\n")
        let (lines, splitter) = split([Array(input[..<cut]), Array(input[cut...])], maxLineBytes: 8)
        #expect(lines == ["abcdefgh", "next"], "cut at \(cut)")
        #expect(splitter.truncatedLines == 1)
        #expect(splitter.lines == 2)
    }
}

@Test func anOverlongPartialLastLineIsEmittedOnceCut() {
    let (lines, splitter) = split([bytes("0123456789abc")], maxLineBytes: 4)
    #expect(lines == ["0123"])
    #expect(splitter.truncatedLines == 1)
    #expect(splitter.lines == 1)
}

@Test func aTruncatedLineIsEmittedAsSoonAsItIsKnownToBeTooLong() {
    var splitter = LineSplitter(maxLineBytes: 4)
    var lines: [String] = []
    splitter.feed(bytes("abcd")) { lines.append(String(decoding: $0, as: UTF8.self)) }
    #expect(lines.isEmpty)  // exactly at the limit: a newline may still come
    splitter.feed(bytes("e")) { lines.append(String(decoding: $0, as: UTF8.self)) }
    #expect(lines == ["abcd"])
}

@Test func truncationDoesNotSplitAUTF8Character() {
    // "aé€😀" is 1 + 2 + 3 + 4 bytes; every cut inside a character backs off to its start.
    let text = "aé€😀"
    let cases: [(limit: Int, kept: String)] = [
        (1, "a"), (2, "a"), (3, "aé"), (4, "aé"), (5, "aé"), (6, "aé€"),
        (7, "aé€"), (8, "aé€"), (9, "aé€"),
    ]
    for (limit, kept) in cases {
        let (lines, splitter) = split([bytes(text + "tail\n")], maxLineBytes: limit)
        #expect(lines == [kept], "limit \(limit)")
        #expect(splitter.truncatedLines == 1)
    }
}

@Test func truncationLeavesInvalidBytesAlone() {
    let input: [UInt8] = [0x61, 0xFF, 0xFE, 0x80, 0x80, 0x62, 0x0A]
    var splitter = LineSplitter(maxLineBytes: 5)
    var lines: [[UInt8]] = []
    splitter.feed(input) { lines.append(Array($0)) }
    #expect(lines == [[0x61, 0xFF, 0xFE, 0x80, 0x80]])
}

@Test func aFiveMegabyteLineInChunksIsTruncatedOnceInBoundedMemory() {
    let chunkSize = 64 * 1024
    let total = 5 * 1024 * 1024
    let chunk = [UInt8](repeating: UInt8(ascii: "z"), count: chunkSize)
    var splitter = LineSplitter()
    var emitted: [Int] = []
    var largestCapacity = 0
    var fed = 0
    while fed < total {
        splitter.feed(chunk) { emitted.append($0.count) }
        largestCapacity = max(largestCapacity, splitter.bufferCapacity)
        fed += chunkSize
    }
    splitter.feed(bytes("\nafter\n")) { emitted.append($0.count) }
    splitter.finish { emitted.append($0.count) }
    #expect(emitted == [4096, 5])
    #expect(splitter.truncatedLines == 1)
    #expect(splitter.lines == 2)
    #expect(largestCapacity <= 4096 + 64)
}

@Test func aFiveMegabyteLineWithoutNewlineNeverGrowsTheBuffer() {
    // Chunks that each end mid-line are the case that copies into the buffer.
    var splitter = LineSplitter()
    var emitted = 0
    let chunk = [UInt8](repeating: UInt8(ascii: "q"), count: 4095)
    for _ in 0..<(5 * 1024 * 1024 / 4095) {
        splitter.feed(chunk) { _ in emitted += 1 }
        #expect(splitter.bufferCapacity <= 4096 + 64)
    }
    splitter.finish { _ in emitted += 1 }
    #expect(emitted == 1)
    #expect(splitter.truncatedLines == 1)
}

@Test func manyShortLinesSpanningChunksKeepTheBufferSmall() {
    var splitter = LineSplitter()
    var count = 0
    let chunk = bytes("PROGRESS=1/2\nSTATUS=x")  // every chunk leaves a partial line behind
    for _ in 0..<10_000 {
        splitter.feed(chunk) { _ in count += 1 }
    }
    // The first chunk completes `PROGRESS=1/2`; each later one completes `STATUS=xPROGRESS=1/2`.
    #expect(count == 10_000)
    #expect(splitter.bufferCapacity <= 4096 + 64)
}

@Test func finishResetsForANewStream() {
    var splitter = LineSplitter(maxLineBytes: 3)
    splitter.feed(bytes("abcdef")) { _ in }
    splitter.finish { _ in }
    var lines: [String] = []
    splitter.feed(bytes("xy\n")) { lines.append(String(decoding: $0, as: UTF8.self)) }
    #expect(lines == ["xy"])
}

@Test func aMaximumBelowOneIsTakenAsOne() {
    let (lines, splitter) = split([bytes("ab\n\n")], maxLineBytes: 0)
    #expect(splitter.maxLineBytes == 1)
    #expect(lines == ["a", ""])
}

@Test func rawBufferFeedingMatchesArrayFeeding() {
    let input = bytes("x\ny\nz")
    var splitter = LineSplitter()
    var lines: [String] = []
    input.withUnsafeBytes { raw in
        splitter.feed(raw) { lines.append(String(decoding: $0, as: UTF8.self)) }
    }
    splitter.finish { lines.append(String(decoding: $0, as: UTF8.self)) }
    #expect(lines == ["x", "y", "z"])
}

@Test func emittedLinesParseAsDirectives() throws {
    var splitter = LineSplitter()
    var directives: [PluginDirective] = []
    splitter.feed(bytes("PROGRESS=1/4\r\nTITLE=T\nhello\n")) { directives.append(PluginDirective.parse($0)) }
    #expect(directives == [
        .progress(try #require(Progress(completed: 1, total: 4))),
        .title("T"),
        .log("hello"),
    ])
}

@Test func theWordAtATimeNewlineSearchFindsTheFirstNewlineWhereverItIs() {
    // Every position in buffers of 0–40 bytes, every start, with the bytes around the newline
    // the ones that fool a zero-byte test (0x0B and 0x8A differ from 0x0A by one bit or a borrow).
    for filler in [UInt8(0x0B), 0x8A, 0x09, 0x00, 0xFF, UInt8(ascii: "P")] {
        for count in 0...40 {
            for newline in [nil] + Array(0..<count) as [Int?] {
                var bytes = [UInt8](repeating: filler, count: count)
                if let newline { bytes[newline] = 0x0A; if newline + 1 < count { bytes[newline + 1] = 0x0A } }
                for start in 0...count {
                    let expected = bytes.indices.first { $0 >= start && bytes[$0] == 0x0A }
                    let found = bytes.withUnsafeBufferPointer { LineSplitter.firstNewline($0, from: start) }
                    #expect(found == expected, "filler \(filler), \(count) bytes, newline at \(String(describing: newline)), from \(start)")
                }
            }
        }
    }
}

@Test func aFullLengthLineEndingInCRLFIsWholeNotCut() {
    let full = String(repeating: "a", count: 8)
    // In one chunk, and with the `\r\n` arriving after the line has filled the buffer.
    for chunks in [[bytes(full + "\r\n")], [bytes(full), bytes("\r\n")], [bytes(full + "\r"), bytes("\n")]] {
        let (lines, splitter) = split(chunks, maxLineBytes: 8)
        #expect(lines == [full + "\r"], "the reader drops the \\r")
        #expect(splitter.truncatedLines == 0)
    }
    let (lines, splitter) = split([bytes(full + "b\r\n")], maxLineBytes: 8)
    #expect(lines == [full])
    #expect(splitter.truncatedLines == 1, "one byte too many besides the \\r")
}
