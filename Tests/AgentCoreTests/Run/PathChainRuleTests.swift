// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

private let directory: UInt32 = 0o040000
private let link: UInt32 = 0o120000

private func step(_ path: String, _ mode: UInt32, owner: UInt32 = 0) -> PathStep {
    PathStep(path: path, kind: .directory, facts: FileFacts(ownerUID: owner, mode: directory | mode))
}

private func linkStep(_ path: String, to target: String, owner: UInt32) -> PathStep {
    PathStep(path: path, kind: .symbolicLink(target: target), facts: FileFacts(ownerUID: owner, mode: link | 0o777))
}

private func problem(_ steps: [PathStep], agentUID: UInt32 = 1000) -> String? {
    PathChainRule.problem(steps, path: "/home/ann/tool", agentUID: agentUID, agentUserName: "ann")
}

@Test func everyStepOwnedByRootOrTheAgentsUserPasses() {
    #expect(problem([step("/", 0o755), step("/tmp", 0o1777), step("/home", 0o755),
                     step("/home/ann", 0o700, owner: 1000), linkStep("/home/ann/tool", to: "/usr/bin/true", owner: 1000),
                     step("/usr", 0o755), step("/usr/bin", 0o755)]) == nil)
    #expect(problem([]) == nil, "a plain file has no steps to judge")
}

@Test func aDirectoryOfAnotherUserOnTheWaySaysWhatTheUserCanDo() {
    #expect(problem([step("/", 0o755), step("/home/bob", 0o755, owner: 1001)])
        == "unsafe: /home/bob (on the way to /home/ann/tool) is owned by uid 1001, not root or the agent's user ann "
        + "(uid 1000); run chown ann /home/bob, or keep the file and every link to it in directories of root or ann")
    #expect(problem([step("/srv", 0o775)]) == "unsafe: /srv (on the way to /home/ann/tool) is group-writable; run chmod g-w /srv")
    #expect(problem([step("/home", 0o775)]) == "unsafe: /home (above /home/ann/tool) is group-writable; run chmod g-w /home")
}

@Test func aLinkOfAnotherUserIsRefusedWhateverItsDirectory() {
    #expect(problem([step("/", 0o755), linkStep("/opt/tool", to: "/usr/bin/true", owner: 65534)], agentUID: 0)
        == "unsafe: /opt/tool (a symbolic link to /usr/bin/true on the way to /home/ann/tool) is owned by uid "
        + "65534, not root, so that user could choose which file it leads to; run chown -h root /opt/tool")
    #expect(problem([linkStep("/opt/tool", to: "x", owner: 1001)])?.hasSuffix(
        "as root, run chown -h ann /opt/tool, or replace it with a link of ann's own") == true)
}
