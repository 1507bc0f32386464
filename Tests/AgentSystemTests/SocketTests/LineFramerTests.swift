// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentSystem

@Suite("LineFramer")
struct LineFramerTests {
    private func lines(_ framer: inout LineFramer) -> [LineFramer.Frame] {
        var out: [LineFramer.Frame] = []
        while let frame = framer.next() { out.append(frame) }
        return out
    }

    @Test("splits on newlines across arbitrary chunk boundaries")
    func splitsAcrossChunks() {
        let text = Array("alpha\nbeta\n\ngamma\n".utf8)
        for chunk in 1...text.count {
            var framer = LineFramer(maxLineBytes: 100)
            var frames: [LineFramer.Frame] = []
            var index = 0
            while index < text.count {
                framer.append(contentsOf: text[index..<min(index + chunk, text.count)])
                frames += lines(&framer)
                index += chunk
            }
            #expect(frames == [.line(Array("alpha".utf8)), .line(Array("beta".utf8)), .line([]),
                               .line(Array("gamma".utf8))], "chunk \(chunk)")
            #expect(framer.bufferedCount == 0)
        }
    }

    @Test("a partial line waits for its newline")
    func partialLineWaits() {
        var framer = LineFramer(maxLineBytes: 10)
        framer.append(contentsOf: Array("abc".utf8))
        #expect(framer.next() == nil)
        #expect(framer.bufferedCount == 3)
        framer.append(contentsOf: Array("def\n".utf8))
        #expect(framer.next() == .line(Array("abcdef".utf8)))
    }

    @Test("exactly the limit passes; one more byte is too long")
    func limitBoundary() {
        var framer = LineFramer(maxLineBytes: 4)
        framer.append(contentsOf: Array("abcd\nabcde\nok\n".utf8))
        #expect(lines(&framer) == [.line(Array("abcd".utf8)), .tooLong, .line(Array("ok".utf8))])
    }

    @Test("an oversized partial line is reported once, discarded up to its newline, then framing resumes")
    func oversizedPartialLine() {
        var framer = LineFramer(maxLineBytes: 8)
        framer.append(contentsOf: [UInt8](repeating: 0x61, count: 9))
        #expect(framer.next() == .tooLong)
        #expect(framer.bufferedCount == 0)
        framer.append(contentsOf: [UInt8](repeating: 0x61, count: 100))
        #expect(framer.next() == nil)
        #expect(framer.bufferedCount == 0)  // memory stays bounded while discarding
        framer.append(contentsOf: Array("aaa\nnext\n".utf8))
        #expect(lines(&framer) == [.line(Array("next".utf8))])
    }

    @Test("many lines in one large buffer")
    func manyLines() {
        var framer = LineFramer(maxLineBytes: 64)
        var input: [UInt8] = []
        for i in 0..<5_000 { input += Array("line \(i)\n".utf8) }
        input.withUnsafeBytes { framer.append($0) }
        let frames = lines(&framer)
        #expect(frames.count == 5_000)
        #expect(frames.last == .line(Array("line 4999".utf8)))
        #expect(framer.bufferedCount == 0)
    }
}
