// SPDX-License-Identifier: Apache-2.0
import AgentCore
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

    /// A cron line's MAILTO= report job that cannot be written (no mail-report plugin, a per-user
    /// agent) leaves no OnFailure= pointing at nothing, and the job says nothing reports a failure
    /// (helper-43: the agent logged "not a registered job; nothing chained" at each failure).
    @Test func aJobWhoseReportCannotBeWrittenLosesItsOnFailureAndSaysSo() throws {
        let converted = CronConverter.convert("MAILTO=ops\n5 * * * * root /bin/true\n", name: "c", source: "/etc/cron.d/c",
                                              withUser: true)
        let job = try #require(converted.jobs.first { $0.value(of: "OnFailure") != nil })
        let report = try #require(job.value(of: "OnFailure"))
        let kept = ConvertValidation.withoutChainsTo([report], job)
        #expect(kept.value(of: "OnFailure") == nil)
        #expect(!kept.notes.contains { $0.contains("(OnFailure=\(report))") }, "\(kept.notes)")
        #expect(kept.notes.contains { $0.hasPrefix("cron mailed this line's output; its report job (\(report)) could not be written") })
        #expect(ConvertValidation.withoutChainsTo(["local.other"], job) == job)
    }
}
