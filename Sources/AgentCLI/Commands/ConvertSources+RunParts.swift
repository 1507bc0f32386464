// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentPOSIX
import Glibc

/// A run-parts directory, with what runs it on this machine (`RunPartsRunner`).
extension ConvertSources {
    static func convertDirectory(_ given: String, prefix: String, into outcome: inout ConvertOutcome) {
        // Exec= needs an absolute path: `convert cron.daily` from /etc is /etc/cron.daily.
        var path = FileSystem.absolute(given)
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        var scripts: [RunPartsConverter.Script] = []
        for name in SmallFile.entries(path) {
            let file = path + "/" + name
            // stat, not lstat: run-parts runs a symlink to an executable file as the file itself.
            var info = stat()
            guard stat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            let executable = info.st_mode & 0o111 != 0
            let text = executable ? (SmallFile.read(file, limit: readLimit) ?? "") : ""
            scripts.append(RunPartsConverter.Script(name: name, isExecutable: executable,
                                                    owner: userName(info.st_uid), text: text))
        }
        let result = RunPartsConverter.convert(directory: path, scripts: scripts, runner: runPartsRunner(of: path),
                                               prefix: prefix, underSystemd: systemdIsInit)
        outcome.jobs += result.jobs
        outcome.failures += result.errors
        outcome.notes += result.notes
        for job in result.jobs {
            let script = job.sources.first ?? ""
            outcome.replaced.append(ConvertReplacement(parts: [(script, .init(job))]) { _ in
                "chmod -x \(script)  (run-parts then skips it)"
            })
        }
    }

    /// What runs `directory` on this machine: a line of the crontab beside it, or of the
    /// anacrontab beside it where anacron is installed (without anacron Debian's crontab lines
    /// run cron.daily, weekly and monthly themselves).
    /// `directory` is absolute, without a trailing slash.
    static func runPartsRunner(of directory: String) -> RunPartsRunner? {
        let parent = FileSystem.parentDirectory(of: directory)
        func file(_ name: String) -> RunPartsRunner.File? {
            let path = (parent == "/" ? "" : parent) + "/" + name
            return SmallFile.read(path, limit: readLimit).map { RunPartsRunner.File(path: path, text: $0) }
        }
        let anacronInstalled = access("/usr/sbin/anacron", X_OK) == 0
        guard var runner = RunPartsRunner.find(directory: directory, crontab: file("crontab"),
                                               anacrontab: anacronInstalled ? file("anacrontab") : nil) else { return nil }
        if runner.program == .anacron {
            let service = systemUnitTexts("anacron.service")
            runner.onlyOnACPower = RunPartsRunner.anacronNeedsACPower(unitTexts: service)
            runner.anacronKillMode = RunPartsRunner.anacronKillMode(unitTexts: service)
            runner.anacronCalendars = RunPartsRunner.anacronCalendars(timerTexts: systemUnitTexts("anacron.timer"))
        }
        return runner
    }

    /// The system unit `name` and its drop-ins, in the order systemd applies them.
    static func systemUnitTexts(_ name: String) -> [String] {
        let directories = UnitFileLocation.systemDirectories
        guard let unit = UnitFileLocation.file(name, in: directories) else { return [] }
        return ([unit] + UnitFileLocation.dropIns(of: name, in: directories))
            .compactMap { SmallFile.read($0, limit: readLimit) }
    }
}
