// SPDX-License-Identifier: Apache-2.0
/// Jobs that one `convert` would give the same file name: a script of one name in cron.daily and
/// cron.weekly (rkhunter's scan and its update), a timer and a script of one name. Each is named
/// apart by where it came from (`rkhunter-daily.job`, `etckeeper-timer.job`), so that none
/// overwrites another and each keeps its own identifier.
public enum ConvertNaming {
    /// One job renamed: its first source, and its file name before and after.
    public struct Rename: Sendable, Hashable {
        public var source: String
        public var from: String
        public var to: String
    }

    /// Renames the jobs whose file name another job of `jobs` has (identical jobs, such as the
    /// one mail-report job many crontabs ask for, are not a clash).
    public static func nameApart(_ jobs: inout [ConvertedJob]) -> [Rename] {
        var byName: [String: [Int]] = [:]
        for (index, job) in jobs.enumerated() { byName[job.fileName, default: []].append(index) }
        var renames: [Rename] = []
        var taken = Set(jobs.map(\.fileName))
        for (name, indices) in byName.sorted(by: { $0.key < $1.key }) where Set(indices.map { jobs[$0].text }).count > 1 {
            for index in indices {
                let named = String(name.dropLast(".job".count)) + "-" + qualifier(of: jobs[index].sources.first ?? "")
                var qualified = named
                var number = 2
                while taken.contains(qualified + ".job") {
                    qualified = named + "-\(number)"
                    number += 1
                }
                taken.insert(qualified + ".job")
                renames.append(Rename(source: jobs[index].sources.first ?? "", from: name, to: qualified + ".job"))
                jobs[index].rename(to: qualified)
            }
        }
        return renames
    }

    /// `daily` for `/etc/cron.daily/x`, `timer` for a `.timer`, else the directory's name
    /// (`cron.d`'s `d`, a crontab's `crontab`), made an identifier's characters.
    static func qualifier(of source: String) -> String {
        let path = source.split(separator: ":").first.map(String.init) ?? source
        if path.hasSuffix(".timer") { return "timer" }
        let parts = path.split(separator: "/")
        let directory = parts.count >= 2 ? String(parts[parts.count - 2]) : "job"
        let word = directory.hasPrefix("cron.") ? String(directory.dropFirst("cron.".count)) : directory
        return JobName.sanitized(word)
    }
}

extension ConvertedJob {
    /// The job as `stem.job`, its identifier's last component following.
    mutating func rename(to stem: String) {
        let old = String(fileName.dropLast(".job".count))
        fileName = stem + ".job"
        keys = keys.map { key, value in
            guard key == "Identifier", value.hasSuffix("." + old) else { return (key, value) }
            return (key, String(value.dropLast(old.count)) + stem)
        }
    }
}
