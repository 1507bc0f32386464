// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCLI

/// What `agentctl convert` tells its user to do with the crontab lines it replaced: advice that
/// works as written for whoever ran it.
@Suite struct ConvertAdviceTests {
    @Test func rootEditsAnyUsersCrontabByName() {
        #expect(ConvertSources.crontabEdit(owner: "ann", byUID: 0, named: "root") == "crontab -e -u ann")
        #expect(ConvertSources.crontabEdit(owner: nil, byUID: 0, named: "root") == "crontab -e -u USER")
    }

    @Test func aUserEditsTheirOwnCrontabWithoutNamingThemselves() {
        // crontab refuses -u to anyone but root, even with the caller's own name.
        #expect(ConvertSources.crontabEdit(owner: "ann", byUID: 1000, named: "ann") == "crontab -e")
    }

    @Test func anotherUsersCrontabNeedsRoot() {
        #expect(ConvertSources.crontabEdit(owner: "bob", byUID: 1000, named: "ann") == "as root: crontab -e -u bob")
    }
}
