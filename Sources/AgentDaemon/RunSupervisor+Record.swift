// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import AgentStore

extension RunSupervisor {
    /// The record of a run that ended: how, and what it said (DESIGN §10) — last status text,
    /// result, truncated lines, invalid directives, the checkpoint it was given and the one it
    /// left.
    static func endRecord(of run: ActiveRun, stopReason: StopReason, endedAt: Int64,
                          exitStatus: Int32?, signal: Int32?) -> StoredRun {
        let state = run.state
        var record = StoredRun(
            runID: state.id.description, identifier: state.identifier.rawValue, kind: state.kind,
            reason: state.reason, startedAt: run.startedAtMilliseconds, endedAt: endedAt,
            stopReason: stopReason, exitStatus: exitStatus, signal: signal,
            progress: state.progress?.fraction, title: state.title, job: run.job.identifier.rawValue)
        record.completedUnitCount = state.progress?.completedUnitCount
        record.totalUnitCount = state.progress?.totalUnitCount
        // The lines as they are: the store joins them once, for its column.
        record.logTail = state.logTail.lines
        record.notes = RunNotes(
            statusText: state.statusText, result: state.result,
            truncatedLineCount: run.process?.truncatedLines ?? 0, invalidDirectiveCount: state.invalidDirectives,
            checkpointGiven: state.checkpointGiven, checkpointLeft: state.checkpoint)
        return record
    }
}
