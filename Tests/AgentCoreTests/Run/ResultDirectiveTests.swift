// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// `RESULT=` (DESIGN §5, issue 15 item 1): at most 4 KiB — as much as fits a 4096-byte line after
/// the key — the last one wins, a longer or cut one is rejected and counted, the previous kept.
@Suite struct ResultDirectiveTests {
    private func parse(_ text: String, wasCut: Bool = false) -> PluginDirective {
        PluginDirective.parse(Array(text.utf8), wasCut: wasCut)
    }

    private func makeRun(checkpoint: String? = nil) -> LiveRun {
        LiveRun(id: RunID(1), identifier: Identifier(rawValue: "local.a")!, kind: .processing, reason: .chained,
                startedAt: 1000, settings: .init(maxRuntime: nil, progressTimeout: nil, gracePeriod: .seconds(5)),
                checkpoint: checkpoint)
    }

    /// Splits `output` as a plugin's stdout is split (4096-byte lines) and parses each line.
    private func directives(_ output: [UInt8]) -> [PluginDirective] {
        var splitter = LineSplitter()
        var parsed: [PluginDirective] = []
        output.withUnsafeBytes { chunk in
            splitter.feedMarkingCuts(chunk) { line, wasCut in parsed.append(PluginDirective.parse(line, wasCut: wasCut)) }
        }
        return parsed
    }

    @Test func theLimitIsWithin4KiBAndFillsA4096ByteLine() {
        #expect(PluginDirective.maxResultBytes == 4089)
        #expect(PluginDirective.maxResultBytes <= 4096)
        #expect("RESULT=".utf8.count + PluginDirective.maxResultBytes == LineSplitter().maxLineBytes)
    }

    @Test func aResultOfExactlyTheLimitIsKeptWhole() {
        let value = String(repeating: "x", count: PluginDirective.maxResultBytes)
        #expect(parse("RESULT=" + value) == .result(value))
    }

    @Test func aResultOneByteOverTheLimitIsRejected() {
        let value = String(repeating: "x", count: PluginDirective.maxResultBytes + 1)
        #expect(parse("RESULT=" + value) == .invalid(.resultTooLong))
    }

    @Test func throughTheLineSplitterA4096ByteLineIsAResultAndALongerOneIsRejectedNotCut() {
        let fits = "RESULT=" + String(repeating: "a", count: PluginDirective.maxResultBytes) + "\n"
        let over = "RESULT=" + String(repeating: "b", count: PluginDirective.maxResultBytes + 1) + "\n"
        let huge = "RESULT=" + String(repeating: "c", count: 100_000) + "\n"
        let parsed = directives(Array((fits + over + huge).utf8))
        #expect(parsed.count == 3)
        #expect(parsed[0] == .result(String(repeating: "a", count: PluginDirective.maxResultBytes)))
        // Without the cut mark, the cut line would be a 4089-byte result: the start of the real one.
        #expect(parsed[1] == .invalid(.resultTooLong))
        #expect(parsed[2] == .invalid(.resultTooLong))
    }

    @Test func aCutLineIsNeverAResultEvenWhenShort() {
        #expect(parse("RESULT=/var/cache/x", wasCut: true) == .invalid(.resultTooLong))
        // Other directives keep their cut text as before.
        #expect(parse("STATUS=partly", wasCut: true) == .status("partly"))
    }

    @Test func anEmptyResultIsAResultAndANULByteIsRejected() {
        #expect(parse("RESULT=") == .result(""))
        #expect(PluginDirective.parse(Array("RESULT=a".utf8) + [0] + Array("b".utf8)) == .invalid(.resultContainsNUL))
        #expect(parse("RESULT=/srv/nightly.tar\r") == .result("/srv/nightly.tar"))
        #expect(parse("result=x") == .log("result=x"))
    }

    @Test func theLastResultWinsAndAnOversizedOneIsCountedAndLeavesThePreviousOne() {
        var run = makeRun()
        #expect(run.result == nil)
        _ = run.apply(parse("RESULT=first"))
        _ = run.apply(parse("RESULT=second"))
        #expect(run.result == "second")
        let effect = run.apply(parse("RESULT=" + String(repeating: "z", count: 5000)))
        #expect(effect == .invalid(.resultTooLong))
        #expect(run.result == "second")
        #expect(run.invalidDirectives == 1)
    }

    @Test func theCheckpointGivenIsKeptBesideTheOneLeft() {
        var run = makeRun(checkpoint: "batch-1")
        _ = run.apply(parse("CHECKPOINT=batch-2"))
        #expect(run.checkpointGiven == "batch-1")
        #expect(run.checkpoint == "batch-2")
        #expect(makeRun().checkpointGiven == nil)
    }
}
