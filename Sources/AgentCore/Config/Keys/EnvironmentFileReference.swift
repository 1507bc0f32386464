// SPDX-License-Identifier: Apache-2.0
/// One `EnvironmentFile=` of a job: read at each spawn, so an edit applies to the next run.
public struct EnvironmentFileReference: Hashable, Sendable {
    /// Absolute path.
    public var path: String
    /// Written with systemd's leading `-`: a missing file is no error.
    public var mayBeMissing: Bool

    public init(path: String, mayBeMissing: Bool = false) {
        self.path = path
        self.mayBeMissing = mayBeMissing
    }

    /// `EnvironmentFile=` as written (`-/etc/default/x`).
    public var setting: String { (mayBeMissing ? "-" : "") + path }
}
