// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// docs/app-developers.md's examples as written (issue 27 item 7): its manifest and job in a
/// user's agent, and its Python client submitting continued work and following it to its end.
/// The one change is the job's `Exec=`, which names a plugin the reader's package would ship.
@Suite(.serialized) struct AppDevelopersDocTests {
    /// The page's fenced code blocks, in order: (language, text).
    private func codeBlocks() throws -> [(String, String)] {
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/app-developers.md")
        let parts = try String(contentsOf: page, encoding: .utf8).components(separatedBy: "```")
        // Odd parts are inside fences: the first line is the language.
        return stride(from: 1, to: parts.count, by: 2).map { index in
            let block = parts[index]
            let newline = block.firstIndex(of: "\n") ?? block.startIndex
            return (String(block[..<newline]), String(block[newline...].dropFirst()))
        }
    }

    @Test func theManifestJobAndPythonClientWorkAsWritten() throws {
        let blocks = try codeBlocks()
        let manifest = try #require(blocks.first { $0.1.hasPrefix("[Manifest]") }?.1)
        let job = try #require(blocks.first { $0.1.hasPrefix("[Job]") }?.1)
        let client = try #require(blocks.first { $0.0 == "python" }?.1)

        let session = try UserSession(user: try TestUser())
        try session.write(session.configDirectory + "/manifests.d/com.example.photos.manifest", manifest)
        let plugin = try session.plugin("export-plugin", "for i in 1 2 3 4; do echo PROGRESS=$i/4; done\n")
        let ownExec = job.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("Exec=") ? "Exec=\(plugin)" : String($0) }.joined(separator: "\n")
        try session.write(session.configDirectory + "/jobs.d/photos-export.job", ownExec)
        let agent = try UserAgent(session)
        defer { agent.stop() }

        let script = session.home + "/follow.py"
        try session.write(script, client, mode: 0o755)
        let followed = try runCommand("/usr/bin/setpriv", session.user.setpriv + ["/usr/bin/python3", script],
                                      environment: session.environment)
        #expect(followed.status == 0, "\(followed.stdout)\(followed.stderr)\(agent.logLines.suffix(10))")
        #expect(followed.stdout.contains("ended: success"), "\(followed.stdout)")
        try agent.waitForLog("of com.example.photos.export.holidays ended: success")
    }
}
