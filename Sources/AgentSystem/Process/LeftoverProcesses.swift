// SPDX-License-Identifier: Apache-2.0
import AgentCore
import CShim
import Glibc

/// Kills what a run left in its process group after the agent died — and only that. A process
/// group number is only a number: another process may lead that group now. So each member is
/// verified first: its environment (`/proc/PID/environ`, as the agent set it at spawn) must
/// carry the run's `AGENTD_RUN_ID` and `AGENTD_IDENTIFIER`. The check and the kill go through
/// one pidfd, opened before the check: if the process exits and its pid is reused in between,
/// the kill fails (ESRCH) instead of reaching the newcomer.
public enum LeftoverProcesses {
    /// What happened to a process group's members.
    public struct Outcome: Sendable, Hashable {
        /// Members verified to be the run's and sent SIGKILL.
        public var killed: [pid_t] = []
        /// Members that are not the run's (or could not be verified), left alone.
        public var spared: [pid_t] = []
    }

    /// Kills the members of `processGroup` that belong to run `runID` of `identifier`.
    /// `procRoot` is the real `/proc` of the agent's pid namespace: pids are killed there.
    public static func killVerified(processGroup: pid_t, runID: String, identifier: String,
                                    procRoot: String = "/proc") -> Outcome {
        var outcome = Outcome()
        let markers = [Array("AGENTD_RUN_ID=\(runID)".utf8), Array("AGENTD_IDENTIFIER=\(identifier)".utf8)]
        forEachProcess(procRoot: procRoot) { pid, pidfd in
            guard self.processGroup(of: pid, procRoot: procRoot) == processGroup else { return }
            let environment = environmentEntries(of: pid, procRoot: procRoot)
            if markers.allSatisfy({ environment.contains($0) }), cshim_pidfd_send_signal(pidfd, SIGKILL) == 0 {
                outcome.killed.append(pid)
            } else {
                outcome.spared.append(pid)
            }
        }
        return outcome
    }

    /// Each process of `procRoot` but init and the agent, with a pidfd opened before anything
    /// about it is read: a signal sent through it can only reach the process that was read.
    private static func forEachProcess(procRoot: String, _ body: (pid_t, Int32) -> Void) {
        let own = getpid()
        for pid in SmallFile.entries(procRoot).compactMap({ pid_t($0) }) where pid > 1 && pid != own {
            let pidfd = cshim_pidfd_open(pid)
            guard pidfd >= 0 else { continue }
            defer { close(pidfd) }
            body(pid, pidfd)
        }
    }

    /// Kills the processes of runs an agent started but never recorded, where runs had no cgroup
    /// to find them by: each process whose environment, as the agent set it at spawn, names this
    /// agent's socket (`AGENTD_SOCKET`) and a run id above `highest` (every recorded run is at or
    /// below it, the start records being written in order). Checked and killed through one pidfd,
    /// as above. Returns the killed pids per run.
    public static func killUnrecorded(socket: String, above highest: UInt64,
                                      procRoot: String = "/proc") -> [RunID: [pid_t]] {
        let socketEntry = Array("AGENTD_SOCKET=\(socket)".utf8)
        let runPrefix = Array("AGENTD_RUN_ID=".utf8)
        var killed: [RunID: [pid_t]] = [:]
        forEachProcess(procRoot: procRoot) { pid, pidfd in
            let environment = environmentEntries(of: pid, procRoot: procRoot)
            guard environment.contains(socketEntry),
                  let entry = environment.first(where: { $0.starts(with: runPrefix) }),
                  let run = RunID(parsing: String(decoding: entry.dropFirst(runPrefix.count), as: UTF8.self)),
                  run.number > highest, cshim_pidfd_send_signal(pidfd, SIGKILL) == 0 else { return }
            killed[run, default: []].append(pid)
        }
        return killed
    }

    /// The process group of `pid` (field 5 of `/proc/PID/stat`), nil when it has gone.
    static func processGroup(of pid: pid_t, procRoot: String) -> pid_t? {
        guard let text = SmallFile.read("\(procRoot)/\(pid)/stat", limit: 4096),
              let close = text.lastIndex(of: ")") else { return nil }
        // After "(comm)": state, ppid, pgrp.
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 2 ? pid_t(fields[2]) : nil
    }

    /// The `KEY=VALUE` entries of `pid`'s environment as set at exec, as bytes (empty when it
    /// cannot be read: another user's process for an unprivileged agent, or a zombie).
    static func environmentEntries(of pid: pid_t, procRoot: String) -> Set<[UInt8]> {
        let fd = open("\(procRoot)/\(pid)/environ", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        // The agent's part of a plugin's environment is small; 1 MiB bounds a hostile one.
        while bytes.count < 1 << 20 {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return Set(bytes.split(separator: 0).map(Array.init))
    }
}
