// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem

/// New drop-in scripts the watcher reported, not yet read.
///
/// `sed -i` and `perl -i` edit a file by writing a temporary copy beside it (`sedXXXXXX`,
/// `XXH8i9O2`: names a drop-in script may have), giving it the file's mode and renaming it over
/// the file. Read at once, the copy of an executable script was a new job, due at once, started
/// under the copy's name while the editor still held it (`spawn-failed(Text file busy)`) — or,
/// after the editor closed it, the script ran twice. So a name jobs.d has not held before is
/// read only once nothing has happened to it for `settlePeriod`; a copy renamed away by then was
/// never a job. Files already known, `.job` files and everything else are read at once.
struct PendingDropIns {
    /// Far longer than an in-place edit keeps its copy (microseconds to milliseconds), short
    /// enough that a script dropped in is listed before a person looks.
    static let settlePeriod: Duration = .milliseconds(250)
    /// However busy jobs.d stays (a file there written to without end), a script waits no longer
    /// than this after the first of the pending ones appeared.
    static let longestWait: Duration = .seconds(3)

    private var paths: Set<String> = []
    /// When the oldest pending path was added (nil: none pending).
    private(set) var since: MonotonicInstant?

    var isEmpty: Bool { paths.isEmpty }

    /// Whether `relativePath` is a drop-in script that `known` says was never read: it waits.
    static func waits(_ relativePath: String, known: Bool) -> Bool {
        guard !known, case .dropInScript = ConfigPath.role(of: relativePath) else { return false }
        return true
    }

    mutating func add(_ relativePath: String, at now: MonotonicInstant) {
        if paths.isEmpty { since = now }
        paths.insert(relativePath)
    }

    /// How long to wait now for the pending paths to settle.
    func wait(at now: MonotonicInstant) -> Duration {
        guard let since else { return Self.settlePeriod }
        let left = Self.longestWait - since.duration(to: now)
        return max(.zero, min(Self.settlePeriod, left))
    }

    /// Gone before it settled: it was never read, so there is nothing to remove. True when it
    /// was pending.
    mutating func forget(_ relativePath: String) -> Bool {
        defer { if paths.isEmpty { since = nil } }
        return paths.remove(relativePath) != nil
    }

    /// At most `limit` pending paths, in a stable order; the rest stay. Sorted once per round of
    /// slices, not per slice: 10,000 scripts are 313 slices.
    mutating func take(_ limit: Int) -> [String] {
        if order.isEmpty { order = paths.sorted().reversed() }
        var taken: [String] = []
        while taken.count < limit, let next = order.popLast() {
            if paths.remove(next) != nil { taken.append(next) }
        }
        if paths.isEmpty { since = nil }
        return taken
    }

    /// The current round's paths, last first (so that taking pops from the end).
    private var order: [String] = []
}
