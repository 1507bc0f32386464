// SPDX-License-Identifier: Apache-2.0
/// Which queued submissions `cancel-request ID` withdraws: those submitted with `ID`, and —
/// when `ID` is a continued job's own identifier and the withdrawal is not exact — those of
/// every dynamic identifier under it (agentctl's "all of that job's"; the BackgroundTasks
/// library asks for exactly `ID`, as iOS cancels one identifier's request).
struct SubmissionMatch {
    let id: Identifier
    let exactly: Bool

    /// Whether a submission made with `identifier` for `job` is withdrawn.
    func covers(_ identifier: Identifier, job: Identifier) -> Bool {
        identifier == id || (!exactly && job == id)
    }
}
