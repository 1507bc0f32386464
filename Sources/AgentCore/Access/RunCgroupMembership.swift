// SPDX-License-Identifier: Apache-2.0
/// Which of the agent's runs a process belongs to, from its `/proc/PID/cgroup` (DESIGN §9: a
/// run acts for its own manifest's identifiers, and the agent knows its processes).
///
/// Every run gets cgroups named `run-rNNNNNN` that the agent made (the unified one, and on a
/// hybrid host its cgroup v1 limit groups); only root can move a process into them, so a
/// process found in one is that run's. No secret is handed to the run, so none can leak into
/// its logs. The shell checks that the path found is the run's own (`claims`).
public struct RunCgroupMembership: Sendable, Hashable {
    /// A run id and the cgroup path (relative to its hierarchy's root) that named it.
    public struct Claim: Sendable, Hashable {
        public var run: RunID
        public var path: String
    }

    public private(set) var claims: [Claim] = []

    /// Parses `/proc/PID/cgroup` text: `ID:CONTROLLERS:PATH` lines (`0::/…` for cgroup v2).
    public init(procCgroup text: String) {
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let path = String(fields[2])
            guard let slash = path.lastIndex(of: "/") else { continue }
            let name = path[path.index(after: slash)...]
            guard name.hasPrefix("run-"), let run = RunID(parsing: String(name.dropFirst(4))) else { continue }
            let claim = Claim(run: run, path: path)
            if !claims.contains(claim) { claims.append(claim) }
        }
    }

    /// The run whose cgroup paths (absolute, as the agent made them) end with a claimed path.
    public func run(matching paths: (RunID) -> [String]) -> RunID? {
        for claim in claims where paths(claim.run).contains(where: { $0.hasSuffix(claim.path) }) {
            return claim.run
        }
        return nil
    }
}
