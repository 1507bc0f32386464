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
        return (accepted, refusals)
    }
}
