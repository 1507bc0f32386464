// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem
import Foundation
import Testing

/// ``PathWalk`` on a real tree: every directory and link a lookup passes, each link's target
/// resolved step by step, `..` taken from where a link led.
@Test func aWalkListsEveryDirectoryAndLinkOnTheWayAndEndsAtTheFile() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("pathwalk-\(UUID().uuidString.prefix(8))").path
    defer { try? FileManager.default.removeItem(atPath: root) }
    for directory in ["a/b", "c/d"] {
        try FileManager.default.createDirectory(atPath: root + "/" + directory, withIntermediateDirectories: true)
    }
    try "x".write(toFile: root + "/c/file", atomically: false, encoding: .utf8)
    #expect(symlink("../../c/d", root + "/a/b/up") == 0)     // relative, with ..
    #expect(symlink(root + "/a/b/up/../file", root + "/a/entry") == 0)  // absolute, through the first

    let walk = try PathWalk.walk(root + "/a/entry").get()
    let paths = walk.steps.map(\.path)
    #expect(walk.resolved == root + "/c/file")
    #expect(paths.contains(root + "/a/entry") && paths.contains(root + "/a/b/up"))
    #expect(paths.contains(root + "/a/b") && paths.contains(root + "/c") && paths.contains(root + "/c/d"))
    #expect(!paths.contains(root + "/c/file"), "the file is the caller's to judge")
    var info = stat()
    #expect(stat(root + "/c/file", &info) == 0)
    #expect(walk.inode == UInt64(info.st_ino))
    let links = walk.steps.filter { if case .symbolicLink = $0.kind { return true } else { return false } }
    #expect(links.count == 2)

    #expect(symlink("loop", root + "/loop") == 0)
    guard case .failure(let loop) = PathWalk.walk(root + "/loop") else {
        Issue.record("a link loop resolved")
        return
    }
    #expect(loop.errno == ELOOP)
}
