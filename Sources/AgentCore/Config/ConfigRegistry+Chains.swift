// SPDX-License-Identifier: Apache-2.0
/// Who starts a job through `OnSuccess=` (DESIGN §3): `explain` says so of a job that runs
/// only when another one succeeds.
extension ConfigRegistry {
    /// The registered jobs whose `OnSuccess=` names `id`, sorted.
    public func jobs(chainingTo id: Identifier) -> [Identifier] {
        allJobs.compactMap { job in
            guard case .registered = job.state, job.definition.onSuccess == id else { return nil }
            return job.definition.identifier
        }
    }
}
