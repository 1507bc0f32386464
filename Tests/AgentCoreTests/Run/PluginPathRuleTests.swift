// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

private let regular: UInt32 = 0o100000
private let directory: UInt32 = 0o040000

private func file(_ mode: UInt32, owner: UInt32 = 0) -> String? {
    PluginPathRule.fileProblem(FileFacts(ownerUID: owner, mode: regular | mode), path: "/opt/p/x",
                               agentUID: 0, agentUserName: "root")
}

private func dir(_ mode: UInt32, owner: UInt32 = 0, agentUID: UInt32 = 0) -> String? {
    PluginPathRule.directoryProblem(FileFacts(ownerUID: owner, mode: directory | mode), directory: "/opt/p",
                                    plugin: "/opt/p/x", agentUID: agentUID, agentUserName: "agent")
}

@Test func aSafePluginPasses() {
    #expect(file(0o755) == nil)
    #expect(file(0o700) == nil)
}

@Test func writableByOthersIsUnsafeAndNamesTheCure() {
    #expect(file(0o757) == "unsafe: /opt/p/x is world-writable; run chmod o-w /opt/p/x")
    #expect(file(0o775) == "unsafe: /opt/p/x is group-writable; run chmod g-w /opt/p/x")
    #expect(file(0o777) == "unsafe: /opt/p/x is group- and world-writable; run chmod go-w /opt/p/x")
    #expect(file(0o755, owner: 1000) == "unsafe: /opt/p/x is owned by uid 1000, not root; run chown root /opt/p/x")
}

@Test func notExecutableIsAMistakeNotADanger() {
    #expect(file(0o644) == "/opt/p/x is not executable; run chmod +x /opt/p/x")
}

@Test func aDirectoryOthersCanWriteMakesThePluginUnsafe() {
    #expect(dir(0o755) == nil)
    #expect(dir(0o775) == "unsafe: /opt/p (above /opt/p/x) is group-writable; run chmod g-w /opt/p")
    #expect(dir(0o755, owner: 1000)
        == "unsafe: /opt/p (above /opt/p/x) is owned by uid 1000, not root; run chown root /opt/p")
    #expect(dir(0o755, owner: 1000, agentUID: 1000) == nil)
}

/// /tmp: in a sticky directory only an entry's owner may rename or remove it.
@Test func aStickyDirectoryOfATrustedOwnerIsAccepted() {
    #expect(dir(0o1777) == nil)
    #expect(dir(0o1777, owner: 1000, agentUID: 1000) == nil)
    #expect(dir(0o1777, owner: 1000) != nil)
}

@Test func theDirectoriesAboveAPathEndAtTheRoot() {
    #expect(PluginPathRule.directories(above: "/usr/lib/agentd/x") == ["/usr/lib/agentd", "/usr/lib", "/usr", "/"])
    #expect(PluginPathRule.directories(above: "//usr//x") == ["/usr", "/"])
    #expect(PluginPathRule.directories(above: "/x") == ["/"])
}
