// SPDX-License-Identifier: Apache-2.0
import AgentJSON
import AgentProtocol
import Foundation
import Testing

/// Every JSON golden (agentctl's `--json` output, Tests/Golden) decodes and, printed again as
/// agentctl prints it, gives the same bytes.
@Suite struct GoldenFileTests {
    static let goldenDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Golden")

    static var goldenFiles: [URL] {
        let found = FileManager.default.enumerator(at: goldenDirectory, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL } ?? []
        return found.filter { $0.pathExtension == "json" }.sorted { $0.path < $1.path }
    }

    @Test func thereAreGoldenFiles() {
        #expect(Self.goldenFiles.count >= 10)
    }

    @Test func everyGoldenDecodesAndPrintsTheSameBytes() throws {
        for file in Self.goldenFiles {
            let bytes = Array(try Data(contentsOf: file))
            let document = try JSONLineDecoder().decode(Anything.self, from: bytes)
            expectSameDecoding(Anything.self, bytes)
            var printed = try MessageCoding.encodePretty(document)
            if bytes.last == 0x0A { printed += "\n" }
            #expect(printed == String(decoding: bytes, as: UTF8.self), "\(file.lastPathComponent)")
            expectSameEncoding(document)
        }
    }
}
