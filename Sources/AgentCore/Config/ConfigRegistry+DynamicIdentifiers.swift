// SPDX-License-Identifier: Apache-2.0
/// The one resolution of a submitted or requested identifier to its job (DESIGN §4, §8): a
/// continued submission and a refresh or processing request alike.
extension ConfigRegistry {
    /// The registered job `id` names: its own, or the longest registered job identifier it extends
    /// with a dynamic suffix that a manifest permits with `.*` for that job's kind
    /// (`com.example.export.holidays` → `com.example.export`). `accepts` narrows the kinds.
    public func job(accepting id: Identifier, kind accepts: (JobKind) -> Bool = { _ in true }) -> JobDefinition? {
        if let job = job(id), case .registered = job.state, accepts(job.definition.kind) {
            return job.definition
        }
        for parent in id.parents {
            if let job = job(parent), case .registered = job.state,
               accepts(job.definition.kind), isPermitted(id, kind: job.definition.kind) {
                return job.definition
            }
        }
        return nil
    }
}
