// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Golden files under `Tests/Golden/`: expected output checked in next to the tests. A test
/// compares what it produced with the file; `UPDATE_GOLDEN=1 swift test` rewrites the files
/// instead (then review the diff with git).
enum GoldenFile {
    static let directory: String = {
        let here = URL(fileURLWithPath: #filePath)
        return here.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Golden").path
    }()

    static var updating: Bool { ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" }

    /// Expects `actual` to equal the golden file `name` (a path under Tests/Golden/).
    static func expect(_ actual: String, matches name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let path = directory + "/" + name
        let text = actual.hasSuffix("\n") ? actual : actual + "\n"
        if updating {
            try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                     withIntermediateDirectories: true)
            do {
                try text.write(toFile: path, atomically: true, encoding: .utf8)
            } catch {
                Issue.record("cannot write golden file \(path): \(error)", sourceLocation: sourceLocation)
            }
            return
        }
        guard let expected = try? String(contentsOfFile: path, encoding: .utf8) else {
            Issue.record("no golden file \(name); create it with UPDATE_GOLDEN=1 swift test and review it", sourceLocation: sourceLocation)
            return
        }
        if expected != text {
            Issue.record("output differs from Tests/Golden/\(name) (UPDATE_GOLDEN=1 swift test rewrites it if the change is intended):\n\(difference(expected, text))",
                         sourceLocation: sourceLocation)
        }
    }

    /// The first differing line with its neighbours, expected and actual.
    static func difference(_ expected: String, _ actual: String) -> String {
        let a = expected.components(separatedBy: "\n"), b = actual.components(separatedBy: "\n")
        let first = Array(zip(a, b)).firstIndex { $0 != $1 } ?? min(a.count, b.count)
        let range = max(0, first - 2)..<(first + 3)
        func excerpt(_ lines: [String]) -> String {
            range.filter { $0 < lines.count }.map { "\($0 + 1)| \(lines[$0])" }.joined(separator: "\n")
        }
        return "line \(first + 1)\n--- expected\n\(excerpt(a))\n+++ actual\n\(excerpt(b))"
    }
}
