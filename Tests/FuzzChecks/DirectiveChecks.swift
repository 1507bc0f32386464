// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// A plugin's stdout: the line splitter gives the same lines whatever the chunking, none longer
/// than its limit; each line's directive keeps its bounds (`PROGRESS=` within 0–100 %, a
/// checkpoint and a result short and NUL-free).
enum DirectiveChecks {
    static func check(_ bytes: [UInt8]) -> String? {
        let limit = 1 + Int(bytes.first ?? 0) % 64
        let whole = lines(of: [bytes[...]], limit: limit)
        let chunked = lines(of: Chunking.split(bytes, seed: bytes.last ?? 0), limit: limit)
        if whole.lines != chunked.lines || whole.truncated != chunked.truncated {
            return "chunking changed the lines: \(whole) then \(chunked)"
        }
        if let long = whole.lines.first(where: { $0.count > limit }) {
            return "a line of \(long.count) bytes past the limit \(limit)"
        }
        for line in lines(of: [bytes[...]], limit: 4096).lines + [bytes] {
            if let failure = directiveBounds(PluginDirective.parse(line)) { return failure }
        }
        return checkCutMarks(bytes, limit: limit, expected: whole)
    }

    /// `feedMarkingCuts` gives the lines `feed` gives, marks exactly the truncated ones, and a
    /// marked line is never taken as a `RESULT=` (only its start is there).
    static func checkCutMarks(_ bytes: [UInt8], limit: Int,
                              expected: (lines: [[UInt8]], truncated: Int)) -> String? {
        var splitter = LineSplitter(maxLineBytes: limit)
        var marked: [(line: [UInt8], cut: Bool)] = []
        bytes.withUnsafeBytes { chunk in
            splitter.feedMarkingCuts(chunk) { marked.append((Array($0), $1)) }
        }
        splitter.finish { marked.append((Array($0), false)) }
        if marked.map(\.line) != expected.lines { return "feedMarkingCuts changed the lines" }
        let cuts = marked.filter(\.cut)
        if cuts.count != expected.truncated { return "\(cuts.count) lines marked cut, \(expected.truncated) truncated" }
        for cut in cuts {
            if case .result = PluginDirective.parse(cut.line, wasCut: true) { return "a cut line was taken as a RESULT=" }
        }
        return nil
    }

    static func lines(of chunks: [ArraySlice<UInt8>], limit: Int) -> (lines: [[UInt8]], truncated: Int) {
        var splitter = LineSplitter(maxLineBytes: limit)
        var out: [[UInt8]] = []
        for chunk in chunks {
            splitter.feed(Array(chunk)) { out.append(Array($0)) }
        }
        splitter.finish { out.append(Array($0)) }
        if splitter.lines != out.count { return ([], -1) }
        return (out, splitter.truncatedLines)
    }

    static func directiveBounds(_ directive: PluginDirective) -> String? {
        switch directive {
        case .progress(let progress):
            guard progress.total > 0, (0...progress.total).contains(progress.completed),
                  (0.0...1.0).contains(progress.fraction) else { return "progress out of range: \(progress)" }
        case .checkpoint(let text):
            if text.utf8.count > PluginDirective.maxCheckpointBytes { return "checkpoint of \(text.utf8.count) bytes" }
            if text.utf8.contains(0) { return "checkpoint with a NUL byte" }
        case .result(let text):
            if text.utf8.count > PluginDirective.maxResultBytes { return "result of \(text.utf8.count) bytes" }
            if text.utf8.contains(0) { return "result with a NUL byte" }
        case .title, .subtitle, .status, .log, .invalid:
            break
        }
        return nil
    }
}
