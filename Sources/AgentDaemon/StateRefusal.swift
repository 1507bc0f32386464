// SPDX-License-Identifier: Apache-2.0
/// Why a request that changes persisted state was not made durable (DESIGN §10), at the stage it
/// failed; its text is what the requester is told (`unavailable`).
enum StateRefusal: Error, Equatable, CustomStringConvertible {
    /// Not handled: the state cannot be written now.
    case notAccepted(StateProblem)
    /// Handled, but its write failed: agentd holds it in memory until it can write it.
    case heldInMemory(StateProblem?)
    /// Written, but the sync to disk after it failed.
    case unsynced(StateProblem?)

    var description: String {
        switch self {
        case .notAccepted(let problem): problem.refusal
        case .heldInMemory(let problem): Self.text(problem) + Self.heldNote
        case .unsynced(let problem): Self.text(problem) + Self.unsyncedNote
        }
    }

    private static func text(_ problem: StateProblem?) -> String {
        problem?.refusal ?? "state directory not writable"
    }

    /// When a write fails between the check and the write (the disk filled at that moment).
    static let heldNote = "; this request was not written: agentd holds it in memory and writes it when it can, but it is lost if agentd stops first"

    /// When the sync after a request's write failed.
    static let unsyncedNote = "; this request was written but its sync to disk failed: it is kept, but may not survive a power cut until the state can be written again"
}
