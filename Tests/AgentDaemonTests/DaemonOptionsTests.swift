// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import AgentDaemon
import AgentSystem

@Test func everyPathCanBeOverriddenOnTheCommandLine() throws {
    let outcome = try DaemonOptions.parse(["--config-dir", "/c", "--state-dir=/s", "--socket", "/r/a.sock",
                                           "--sysfs-root", "/fake/sys", "--proc-root", "/fake/proc",
                                           "--system-bus", "unix:path=/tmp/bus", "--simulated-machine"])
    guard case .run(let options) = outcome else {
        Issue.record("expected options, got \(outcome)")
        return
    }
    #expect(options.configDirectory == "/c")
    #expect(options.stateDirectory == "/s")
    #expect(options.socketPath == "/r/a.sock")
    #expect(options.sysfsRoot == "/fake/sys")
    #expect(options.procRoot == "/fake/proc")
    #expect(options.systemBusAddress == "unix:path=/tmp/bus")
    #expect(options.simulatedMachine)
}

@Test func aFakeSysfsRootAloneDoesNotMakeTheMachineSimulated() throws {
    guard case .run(let options) = try DaemonOptions.parse(["--sysfs-root", "/fake/sys"]) else {
        Issue.record("expected options")
        return
    }
    #expect(!options.simulatedMachine)
}

@Test func benchmarkProbesHaveTheirOwnSwitch() throws {
    guard case .run(let stamped) = try DaemonOptions.parse(["--log-timestamps"]),
          case .run(let probed) = try DaemonOptions.parse(["--bench-probes"]) else {
        Issue.record("expected options")
        return
    }
    #expect(stamped.logTimestamps && !stamped.benchProbes)
    #expect(probed.benchProbes && !probed.logTimestamps)
}

@Test func theDefaultsAreTheInstalledPaths() throws {
    #expect(try DaemonOptions.parse([]) == .run(DaemonOptions()))
    #expect(DaemonOptions().configDirectory == "/etc/agentd")
    #expect(DaemonOptions().socketPath == "/run/agentd/agentd.sock")
}

@Test func anUnknownOptionNamesItselfAndPointsAtHelp() {
    #expect(throws: DaemonOptionsError(message: "unknown option '--frob' (see agentd --help)")) {
        try DaemonOptions.parse(["--frob"])
    }
}

@Test func anOptionWithoutItsValueIsRefused() {
    #expect(throws: DaemonOptionsError(message: "option --state-dir needs a value")) {
        try DaemonOptions.parse(["--state-dir"])
    }
}

@Test func versionAndHelpAreAnswered() throws {
    #expect(try DaemonOptions.parse(["--version"]) == .version)
    #expect(try DaemonOptions.parse(["-h"]) == .help)
}

@Test func aBurstOfEventsForOnePathIsOneReload() {
    let batch: [ConfigWatchEvent] = [
        .changed(relativePath: "jobs.d/a.job"), .changed(relativePath: "jobs.d/b.job"),
        .changed(relativePath: "jobs.d/a.job"), .removed(relativePath: "jobs.d/b.job"),
        .rescan(directory: "jobs.d"), .rescan(directory: "jobs.d"),
    ]
    #expect(ConfigFollower.coalesce(batch) == [
        .changed(relativePath: "jobs.d/a.job"), .removed(relativePath: "jobs.d/b.job"),
        .rescan(directory: "jobs.d"),
    ])
}

@Test func theUserAgentTakesItsPathsFromTheXDGVariables() throws {
    let environment = ["HOME": "/home/ann", "XDG_CONFIG_HOME": "/home/ann/cfg", "XDG_RUNTIME_DIR": "/run/user/1000/",
                       "XDG_DATA_DIRS": "/opt/share:relative:/usr/share"]
    guard case .run(let options) = try DaemonOptions.parse(["--user"], environment: environment) else {
        Issue.record("expected options")
        return
    }
    #expect(options.userMode)
    #expect(options.configDirectory == "/home/ann/cfg/agentd")
    #expect(options.stateDirectory == "/home/ann/.local/state/agentd")
    #expect(options.socketPath == "/run/user/1000/agentd.sock")
    // A relative entry is ignored, as the XDG spec says.
    #expect(options.dataDirectories == ["/opt/share/agentd", "/usr/share/agentd"])
    // DesktopEntry= files: the user's own applications first, as the Desktop Entry spec says.
    #expect(options.applicationDirectories == ["/home/ann/.local/share/applications", "/opt/share/applications",
                                               "/usr/share/applications"])
}

@Test func theUserAgentsDefaultsFollowHomeAndAGivenPathWins() throws {
    let environment = ["HOME": "/home/ann", "XDG_RUNTIME_DIR": "/run/user/1000"]
    guard case .run(let options) = try DaemonOptions.parse(["--socket", "/tmp/a.sock", "--user"], environment: environment) else {
        Issue.record("expected options")
        return
    }
    #expect(options.configDirectory == "/home/ann/.config/agentd")
    #expect(options.socketPath == "/tmp/a.sock")
    #expect(options.dataDirectories == ["/usr/local/share/agentd", "/usr/share/agentd"])
    #expect(options.applicationDirectories == ["/home/ann/.local/share/applications", "/usr/local/share/applications",
                                               "/usr/share/applications"])
}

@Test func theUserAgentWithoutXDGRuntimeDirOrHomeSaysWhatToSet() {
    #expect(throws: DaemonOptionsError.self) { try DaemonOptions.parse(["--user"], environment: ["HOME": "/home/ann"]) }
    do {
        _ = try DaemonOptions.parse(["--user"], environment: ["HOME": "/home/ann"])
    } catch {
        #expect(error.message.contains("XDG_RUNTIME_DIR is not set"))
        #expect(error.message.contains("--socket PATH"))
    }
    do {
        _ = try DaemonOptions.parse(["--user"], environment: ["XDG_RUNTIME_DIR": "/run/user/1"])
    } catch {
        #expect(error.message.contains("neither XDG_CONFIG_HOME nor HOME is set"))
    }
}

/// `agentd --config-dir run/demo/etc` once checked a drop-in's directories from `/run/demo/…`
/// and refused to spawn it.
@Test func relativePathsAreTakenFromTheWorkingDirectory() throws {
    guard case .run(let options) = try DaemonOptions.parse(
        ["--config-dir", "run/demo/etc", "--state-dir", "./state", "--socket", "/abs/a.sock", "--proc-root", "."],
        currentDirectory: "/work/main") else {
        Issue.record("expected options")
        return
    }
    #expect(options.configDirectory == "/work/main/run/demo/etc")
    #expect(options.stateDirectory == "/work/main/state")
    #expect(options.socketPath == "/abs/a.sock")
    #expect(options.procRoot == "/work/main")
}

/// `man agentd` names every option `agentd --help` does.
@Test func everyOptionOfTheUsageIsInTheManPage() throws {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("packaging/man/agentd.8").path
    let man = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "\\-", with: "-")
    let options = DaemonOptions.usage.split(separator: "\n").compactMap { line -> String? in
        let word = line.split(separator: " ").first.map(String.init) ?? ""
        return word.hasPrefix("--") ? word : nil
    }
    #expect(options.count >= 10, "\(options)")
    for option in options {
        #expect(man.contains(".B \(option)") || man.contains(".BI \(option)") || man.contains(".BR \(option)"),
                "agentd.8 has no entry for \(option)")
    }
}
