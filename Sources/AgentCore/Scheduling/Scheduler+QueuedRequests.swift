// SPDX-License-Identifier: Apache-2.0
extension Scheduler {
    /// Whether the submission with this request number still waits to start: in its job's
    /// queue, or kept for a job that is not registered now. O(queued); the event stream asks
    /// only while someone follows a queued submission, to tell it when the submission is dropped.
    public func isQueued(requestID: Int64) -> Bool {
        queues.values.contains { queue in queue.all.contains { $0.submission.requestID == requestID } }
            || orphanSubmissions.contains { $0.requestID == requestID }
    }
}
