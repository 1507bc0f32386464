// SPDX-License-Identifier: Apache-2.0
/// One stored copy of each distinct `Exec=` line among the loaded jobs: jobs that run the same
/// plugin with the same arguments share its argv array instead of holding one each.
struct ExecLinePool: Sendable {
    private var lines: Set<[String]> = []

    /// The equal line already stored, to use in place of `exec`; nil when `exec` is new (it is
    /// stored then, and the caller keeps it).
    mutating func stored(equalTo exec: [String]) -> [String]? {
        if let index = lines.firstIndex(of: exec) { return lines[index] }
        lines.insert(exec)
        return nil
    }

    /// Forgets the lines no loaded job uses any more, once there are `slack` more stored lines
    /// than `inUse` can account for (so removing jobs one by one costs O(1) amortized).
    mutating func prune(keeping inUse: @autoclosure () -> [[String]], whenOver count: Int, slack: Int = 64) {
        guard lines.count > count + slack else { return }
        lines = Set(inUse())
    }
}
