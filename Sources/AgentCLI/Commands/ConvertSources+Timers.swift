// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentPOSIX
import Glibc

/// A systemd timer with its service, each read as systemd reads it (`UnitFileLocation`,
/// `EffectiveUnit`).
extension ConvertSources {
    static func convertTimer(_ path: String, name: String, prefix: String, into outcome: inout ConvertOutcome) {
        let directory = FileSystem.parentDirectory(of: path)
        let directories = UnitFileLocation.directories(beside: directory)
        // An instance (foo@bar.timer) is its template (foo@.timer) with %i = bar.
        var instance: String?
        var candidates = [name + ".timer"]
        if let at = name.firstIndex(of: "@") {
            let suffix = String(name[name.index(after: at)...])
            if suffix.isEmpty {
                outcome.failures.append("\(path) is a template: convert an instance (agentctl convert \(directory)/\(name)INSTANCE.timer)")
                return
            }
            instance = suffix
            candidates.append(String(name[...at]) + ".timer")
        }
        // The file systemd uses: an administrator's copy in /etc/systemd/system wins over the package's.
        let timerPath = candidates.lazy.compactMap { UnitFileLocation.file($0, in: directories) }.first ?? path
        // Read from another directory than the one given: systemd's choice, said once.
        let replaced = FileSystem.parentDirectory(of: timerPath) != directory
        if replaced, FileSystem.baseName(of: timerPath) == FileSystem.baseName(of: path) {
            outcome.notes.append("\(path): converted from \(timerPath), the file systemd uses in its place")
        }
        guard let timer = effectiveUnit(timerPath, name: name + ".timer", directories: directories,
                                        instance: instance, into: &outcome) else { return }
        if let problem = TimerConverter.unitProblem(timer.unit, path: path) {
            outcome.failures.append(problem)
            return
        }
        let serviceName = timer.unit.entries(in: "Timer").last { $0.key == "Unit" }?.value ?? name + ".service"
        var serviceCandidates = [serviceName]
        if instance != nil, let at = serviceName.firstIndex(of: "@") {
            serviceCandidates.append(String(serviceName[...at]) + ".service")
        }
        guard let servicePath = serviceCandidates.lazy.compactMap({ UnitFileLocation.file($0, in: directories) }).first else {
            outcome.failures.append("\(path): its service \(directory)/\(serviceName) cannot be read; convert needs both files side by side")
            return
        }
        guard let service = effectiveUnit(servicePath, name: serviceName, directories: directories,
                                          instance: instance, into: &outcome) else { return }
        let sources = [replaced ? timerPath : path, FileSystem.baseName(of: servicePath)]
            + timer.dropIns + service.dropIns
        let jobs = TimerConverter.convertAll(timer: timer.unit, service: service.unit, name: name, sources: sources,
                                             prefix: prefix, resolve: findInPath, userName: userName)
        guard let job = jobs.first else { return }
        // OnActiveSec= alone (mdadm-last-resort@: udev starts the timer) has no agentd form: a
        // job without Schedule=, Interval= or AfterBoot= would never run on its own.
        guard job.keys.contains(where: { ["Schedule", "Interval", "AfterBoot"].contains($0.key) }) else {
            let triggers = timer.unit.entries(in: "Timer").filter { $0.key.hasPrefix("On") }.map { "\($0.key)=\($0.value)" }
            outcome.failures.append("not written: \(job.fileName): \(path) has no trigger agentd can express ("
                + (triggers.isEmpty ? "none at all" : triggers.joined(separator: ", "))
                + ": they count from the timer's own start, which something else makes); leave it to systemd")
            return
        }
        outcome.jobs += jobs
        let turnOff = disableCommand(name, install: timer.unit.entries(in: "Install"))
        // Disabled only once every job of its calendars is written.
        outcome.replaced.append(ConvertReplacement(parts: jobs.map { (name, .init($0)) }, command: { _ in turnOff },
                                                   allOrNothing: true))
    }

    /// How to turn the timer off for good: `disable` undoes what its [Install] section made. A
    /// timer with none is static (its package links it into timers.target.wants, or udev or a
    /// service starts it): disable does nothing, mask stops it. One whose [Install] says `Also=`
    /// would take those units with it on disable: mask stops it alone.
    static func disableCommand(_ name: String, install: [UnitFile.Entry]) -> String {
        let installs = install.contains { ["WantedBy", "RequiredBy", "UpheldBy", "Alias"].contains($0.key) && !$0.value.isEmpty }
        let also = install.filter { $0.key == "Also" && !$0.value.isEmpty }.map(\.value)
        if !installs {
            return "systemctl mask --now \(name).timer  (static: disable would not stop it)"
        }
        if !also.isEmpty {
            return "systemctl mask --now \(name).timer  (disable would also disable \(also.joined(separator: " ")))"
        }
        return "systemctl disable --now \(name).timer"
    }

    /// The name the unit runs under: an instance's, when a template is read for it.
    static func unitName(_ name: String, instance: String?) -> String {
        guard let instance, let at = name.firstIndex(of: "@") else { return name }
        let suffix = name[name.index(after: at)...]
        guard suffix.hasPrefix(".") else { return name }  // already an instance's name
        return String(name[...at]) + instance + suffix
    }

    /// The unit at `path` with its drop-ins applied (`EffectiveUnit`), and the drop-ins read; nil,
    /// with a failure saying why, when it is masked or cannot be read.
    static func effectiveUnit(_ path: String, name: String, directories: [String], instance: String?,
                              into outcome: inout ConvertOutcome) -> (unit: UnitFile, dropIns: [String])? {
        if UnitFileLocation.isMasked(path) {
            outcome.failures.append("\(path) is masked: systemd never starts \(name), so there is nothing to convert "
                + "(systemctl unmask \(name) first if it should run)")
            return nil
        }
        guard let text = read(path, into: &outcome), let file = unit(text, path: path, name: unitName(name, instance: instance)) else {
            if !outcome.failures.contains(where: { $0.contains(path) }) {
                outcome.failures.append("cannot read \(path) as a unit file")
            }
            return nil
        }
        var dropIns: [UnitFile] = []
        var applied: [String] = []
        for dropIn in UnitFileLocation.dropIns(of: name, in: directories) {
            guard let text = SmallFile.read(dropIn, limit: readLimit) else { continue }
            guard let parsed = unit(text, path: dropIn, name: unitName(name, instance: instance)) else {
                outcome.failures.append("cannot read \(dropIn) as a unit file (a drop-in of \(name))")
                return nil
            }
            dropIns.append(parsed)
            applied.append(dropIn)
        }
        return (EffectiveUnit.merge(file, dropIns: dropIns), applied)
    }
}
