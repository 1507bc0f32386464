// SPDX-License-Identifier: Apache-2.0
import Foundation
import FuzzChecks
import Testing

/// Every file under Fuzz/corpus/TARGET/ and Fuzz/regressions/TARGET/ goes through the checks
/// its fuzz target makes (docs/testing.md, "Fuzzing and sanitizers"): the seeds keep passing,
/// and an input that once crashed or broke an invariant stays fixed.
struct FuzzRegressionTests {
    static let fuzzDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    static func inputs(_ kind: String, _ target: FuzzTarget) -> [URL] {
        let directory = fuzzDirectory.appendingPathComponent(kind).appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().filter { !$0.hasPrefix(".") }.map { directory.appendingPathComponent($0) }
    }

    @Test(arguments: FuzzTarget.allCases)
    func everyReproducerFoundByFuzzingKeepsTheInvariants(target: FuzzTarget) throws {
        for file in Self.inputs("regressions", target) {
            let failure = target.check(Array(try Data(contentsOf: file)))
            #expect(failure == nil, "\(file.lastPathComponent): \(failure ?? "")")
        }
    }

    @Test(arguments: FuzzTarget.allCases)
    func everySeedKeepsTheInvariants(target: FuzzTarget) throws {
        let seeds = Self.inputs("corpus", target)
        #expect(!seeds.isEmpty, "no seed corpus in Fuzz/corpus/\(target.rawValue)")
        for file in seeds {
            let failure = target.check(Array(try Data(contentsOf: file)))
            #expect(failure == nil, "\(file.lastPathComponent): \(failure ?? "")")
        }
    }
}
