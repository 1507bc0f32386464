// SPDX-License-Identifier: Apache-2.0
import AgentPOSIX
import Glibc

/// The notification ids of live runs, kept in a small file in the user's runtime directory
/// (tmpfs, the session's): an agent killed with runs live (SIGKILL, the OOM killer) leaves their
/// progress notifications on screen, "never expiring while the run lasts", with a Cancel for a
/// run that is gone; the next agent replaces each with how it ended. One line per run,
/// `r000017 42`; rewritten whole (a few lines: one per live continued run) when one comes or goes.
final class NotificationLedger {
    private let path: String
    private var ids: [String: UInt32] = [:]

    init(path: String) {
        self.path = path
    }

    /// The runs and ids the previous agent left, read once at start; the file is then emptied.
    func takeLeftover() -> [String: UInt32] {
        var found: [String: UInt32] = [:]
        let text = SmallFile.read(path, limit: 64 * 1024) ?? ""
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 2, let id = UInt32(fields[1]), id != 0 else { continue }
            found[String(fields[0])] = id
        }
        if !found.isEmpty { save() }
        return found
    }

    func record(_ run: String, _ id: UInt32) {
        guard ids[run] != id else { return }
        ids[run] = id
        save()
    }

    func forget(_ run: String) {
        guard ids.removeValue(forKey: run) != nil else { return }
        save()
    }

    private func save() {
        let text = ids.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)\n" }.joined()
        // Best effort: without it only a crash's leftover notifications stay on screen. A write cut
        // short by a crash leaves lines the reader skips.
        try? FileSystem.writeFile(path, Array(text.utf8), mode: 0o600)
    }
}
