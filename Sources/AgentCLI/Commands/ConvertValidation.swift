// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentPOSIX
import Glibc

/// Every converted job goes through the job parser before it is printed or written: one it
/// would reject is not written (issue 26 item 10), and the refusal says why.
enum ConvertValidation {
    static func check(_ jobs: [ConvertedJob]) -> (jobs: [ConvertedJob], refusals: [String]) {
        let user = SystemFactsProbe.currentUser()
        let context = ConfigContext(agentUID: user.uid, agentUserName: user.name, privileged: geteuid() == 0,
                                    quotesPrivateFiles: true)
        let facts = SystemFactsProbe()
        var accepted: [ConvertedJob] = []
        var refusals: [String] = []
        for job in jobs {
            let result = JobDefinition.parse(Array(job.text.utf8), path: "jobs.d/" + job.fileName, context: context, facts: facts)
            if result.value == nil {
                let errors = result.diagnostics.filter { $0.severity == .error }.map(\.description)
                refusals.append("not written: \(job.fileName) (from \(job.sources.joined(separator: ", "))) would be rejected: "
                    + errors.joined(separator: "; "))
            } else {
                accepted.append(job)
            }
        }
        let refused = Set(jobs.filter { job in !accepted.contains { $0.fileName == job.fileName } }
            .compactMap { $0.value(of: "Identifier") })
        return (accepted.map { withoutChainsTo(refused, $0) }, refusals)
    }

    /// A job whose `OnFailure=` names a job that could not be written (a mail report for a
    /// per-user agent, a missing mail-report plugin) would chain to nothing: the line goes, and
    /// the comment says that nothing reports a failure now.
    static func withoutChainsTo(_ refused: Set<String>, _ job: ConvertedJob) -> ConvertedJob {
        guard let target = job.value(of: "OnFailure"), refused.contains(target) else { return job }
        var kept = job
        kept.keys.removeAll { $0.key == "OnFailure" }
        kept.notes = kept.notes.filter { !$0.contains("(OnFailure=\(target))") }
        kept.notes.append("cron mailed this line's output; its report job (\(target)) could not be written (see above), "
            + "so nothing reports a failure: fix that, convert again, or add OnFailure= by hand")
        return kept
    }
}
