// SPDX-License-Identifier: Apache-2.0
/// Something the converted jobs replace (a timer, a crontab's lines, a run-parts script) and the
/// command that turns it off. It is listed only for the parts whose jobs were written: turning
/// off a timer whose job `check` refused would lose its work.
struct ConvertReplacement {
    /// Each part replaced (a cron line's number; the timer or script itself) and the file name
    /// of the job that replaces it.
    var parts: [(part: String, job: String)]
    /// The command that turns off the given parts.
    var command: ([String]) -> String

    /// The command for the parts whose jobs are among `written`; nil when there are none.
    func command(written: Set<String>) -> String? {
        let kept = parts.filter { written.contains($0.job) }.map(\.part)
        return kept.isEmpty ? nil : command(kept)
    }
}
