// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Reading the repository's own files (docs, test data) from tests.
enum TestFiles {
    /// The repository root, from this file's path (Tests/AgentCoreTests/Keys/TestFiles.swift).
    static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    static func read(_ path: String) -> String? {
        try? String(contentsOfFile: path, encoding: .utf8)
    }

    static func list(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }
}
