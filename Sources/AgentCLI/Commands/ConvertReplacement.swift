// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// Something the converted jobs replace (a timer, a crontab's lines, a run-parts script) and the
/// command that turns it off. It is listed only for the parts whose jobs were written: turning
/// off a timer whose job `check` refused would lose its work.
struct ConvertReplacement {
    /// A job by its file name and its first source: two jobs of one name from different
    /// sources are told apart (and named apart: `ConvertNaming`).
    struct JobRef: Hashable {
        var fileName: String
        var source: String

        init(_ job: ConvertedJob) {
            fileName = job.fileName
            source = job.sources.first ?? ""
        }
    }

    /// Each part replaced (a cron line's number; the timer or script itself) and the job that
    /// replaces it.
    var parts: [(part: String, job: JobRef)]
    /// The command that turns off the given parts.
    var command: ([String]) -> String
    /// Whether the parts go together (a timer whose calendars became several jobs): turned off
    /// only when every one of their jobs is written.
    var allOrNothing = false

    /// The command for the parts whose jobs are among `written`; nil when there are none.
    func command(written: Set<JobRef>) -> String? {
        let kept = parts.filter { written.contains($0.job) }.map(\.part)
        if allOrNothing, kept.count < parts.count { return nil }
        return kept.isEmpty ? nil : command(kept)
    }

    /// The same, after `renames` named some jobs apart.
    mutating func follow(_ renames: [ConvertNaming.Rename]) {
        for index in parts.indices {
            let job = parts[index].job
            if let rename = renames.first(where: { $0.source == job.source && $0.from == job.fileName }) {
                parts[index].job.fileName = rename.to
            }
        }
    }
}
