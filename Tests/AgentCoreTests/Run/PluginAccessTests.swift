// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// Issue 26 item 1: `check` warns when the job's user cannot read and execute its plugin.
@Suite struct PluginAccessTests {
    let photos = UserIdentity(uid: 1001, groups: [1001, 27])

    @Test func theBitsThatApplyAreTheOwnersElseTheGroupsElseOthers() {
        #expect(PluginAccess.problem(FileFacts(ownerUID: 0, mode: 0o100755), user: photos, userName: "photos") == nil)
        #expect(PluginAccess.problem(FileFacts(ownerUID: 0, mode: 0o100750, groupID: 27), user: photos, userName: "photos") == nil)
        let closed = PluginAccess.problem(FileFacts(ownerUID: 0, mode: 0o100750), user: photos, userName: "photos")
        #expect(closed?.hasPrefix("cannot be read and executed by User=photos (mode 750 for others)") == true)
        let noRead = PluginAccess.problem(FileFacts(ownerUID: 0, mode: 0o100711), user: photos, userName: "photos")
        #expect(noRead?.hasPrefix("cannot be read by User=photos") == true, "a #! script must be readable")
        // The owner's bits apply to the owner even when others' would allow more, as in the kernel.
        #expect(PluginAccess.problem(FileFacts(ownerUID: 1001, mode: 0o100055), user: photos, userName: "photos") != nil)
    }

    @Test func rootNeedsOnlyAnExecuteBit() {
        let root = UserIdentity(uid: 0, groups: [0])
        #expect(PluginAccess.problem(FileFacts(ownerUID: 5, mode: 0o100100), user: root, userName: "root") == nil)
        #expect(PluginAccess.problem(FileFacts(ownerUID: 5, mode: 0o100600), user: root, userName: "root") != nil)
    }

    struct Facts: SystemFacts {
        func plugin(at path: String) -> PluginStatus { .present(FileFacts(ownerUID: 0, mode: 0o100700), executable: true) }
        func userExists(_ name: String) -> Bool { true }
        func userIdentity(_ name: String) -> UserIdentity? { name == "photos" ? UserIdentity(uid: 1001, groups: [1001]) : nil }
    }

    @Test func checkWarnsOnTheExecLineWhenUserCannotRunThePlugin() {
        let result = JobDefinition.parse(
            Array("[Job]\nIdentifier=com.example.test\nExec=/usr/lib/agentd/plugins/x\nUser=photos\n".utf8),
            path: "jobs.d/x.job", context: privilegedContext, facts: Facts())
        #expect(result.value != nil)
        let warning = result.diagnostics.first { $0.message.contains("User=photos") }
        #expect(warning?.line == 3)
        #expect(warning?.message.hasPrefix("Exec: /usr/lib/agentd/plugins/x cannot be read and executed by User=photos") == true)
    }
}
