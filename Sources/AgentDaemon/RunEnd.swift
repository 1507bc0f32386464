// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// A run's end as the run supervisor reports it: to the scheduler, the event stream and the
/// metrics.
struct RunEnd {
    /// The job the run belongs to.
    var job: Identifier
    /// The run's own identifier (a submission's dynamic identifier, else the job's).
    var identifier: Identifier
    var kind: JobKind
    var run: RunID
    var stop: StopReason
    var startedAtMilliseconds: Int64
    var endedAtMilliseconds: Int64
    /// Its last `RESULT=`, for the run an `OnSuccess=` chain starts.
    var result: String? = nil
    /// Its last `STATUS=`, for the event stream and the desktop notification of a failure.
    var status: String? = nil
}
