// SPDX-License-Identifier: Apache-2.0
import AgentTestSupport
import CShim
import Foundation

/// Looks at the real process table: leftovers of a job, zombies of the agent, its open fds.
enum ProcessInspection {
    /// A `FIELD:   N kB` line of /proc/PID/FILE (`status`, `smaps_rollup`), in KiB.
    static func kibibytes(_ field: String, of pid: Int32, in file: String = "status") -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/\(file)", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
        return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
    }

    /// Pids of processes whose environment says they belong to `identifier` (plugins and anything
    /// they started inherit AGENTD_IDENTIFIER).
    /// `socket`: only those of the agent at that socket (`AGENTD_SOCKET`), so another agent on
    /// the machine running a job of the same name is not taken for this one's leftovers.
    static func processes(of identifier: String, socket: String? = nil) -> [Int32] {
        let marker = Data("AGENTD_IDENTIFIER=\(identifier)\u{0}".utf8)
        let agent = socket.map { Data("AGENTD_SOCKET=\($0)\u{0}".utf8) }
        return allPids().filter { pid in
            guard let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return environ.range(of: marker) != nil && agent.map { environ.range(of: $0) != nil } ?? true
                && state(of: pid) != "Z"
        }
    }

    /// Processes of `identifier` and of its dynamic suffixes (`identifier.*`).
    static func processes(ofJob identifier: String) -> [Int32] {
        let exact = Data("AGENTD_IDENTIFIER=\(identifier)\u{0}".utf8)
        let prefix = Data("AGENTD_IDENTIFIER=\(identifier).".utf8)
        return allPids().filter { pid in
            guard let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return (environ.range(of: exact) != nil || environ.range(of: prefix) != nil) && state(of: pid) != "Z"
        }
    }

    /// Processes of `identifier` that remain after waiting up to `timeout` seconds for them to go:
    /// a killed process can still be finishing its exit (and readable in /proc) just after its
    /// cgroup reported empty.
    static func remaining(of identifier: String, socket: String? = nil, timeout: Double = 5) -> [Int32] {
        waitForExits(processes(of: identifier, socket: socket), timeout: timeout)
        return processes(of: identifier, socket: socket)
    }

    /// The same for `identifier` and its dynamic suffixes.
    static func remaining(ofJob identifier: String, timeout: Double = 5) -> [Int32] {
        waitForExits(processes(ofJob: identifier), timeout: timeout)
        return processes(ofJob: identifier)
    }

    private static func waitForExits(_ left: [Int32], timeout: Double) {
        // Wait on the exits themselves: a pidfd becomes readable when its process has exited.
        var fds = left.map { pollfd(fd: cshim_pidfd_open($0), events: Int16(POLLIN), revents: 0) }
        defer { for entry in fds where entry.fd >= 0 { close(entry.fd) } }
        let deadline = Date().addingTimeInterval(timeout)
        while fds.contains(where: { $0.fd >= 0 && $0.revents == 0 }) {
            let remainingMs = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            guard remainingMs > 0 else { break }
            var pending = fds.filter { $0.fd >= 0 && $0.revents == 0 }
            guard poll(&pending, nfds_t(pending.count), remainingMs) > 0 else { break }
            for entry in pending where entry.revents != 0 {
                if let index = fds.firstIndex(where: { $0.fd == entry.fd }) { fds[index].revents = entry.revents }
            }
        }
    }

    /// Children of `parent` that are zombies.
    static func zombies(of parent: Int32) -> [Int32] {
        allPids().filter { pid in
            guard let fields = statFields(pid) else { return false }
            return fields.state == "Z" && fields.ppid == parent
        }
    }

    /// How many descriptors `pid` holds for good: one listing, leaving out what the agent opens
    /// for a moment to read its sampled inputs before a decision (the thermal zones under
    /// /sys/class, the platform profile under /sys/firmware, PSI files), which a count taken
    /// during that read would otherwise include. Pipes, sockets, pidfds, cgroup and state
    /// descriptors — what a leak would be — all count.
    static func openDescriptors(of pid: Int32) -> Int {
        let directory = "/proc/\(pid)/fd"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return -1 }
        return names.filter { name in
            // Closed between the listing and this look: it was one of those moments.
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + name) else { return false }
            return !transientPrefixes.contains { target.hasPrefix($0) } && !target.contains("/proc/pressure/")
        }.count
    }

    static let transientPrefixes = ["/sys/class/", "/sys/firmware/"]

    /// What each descriptor of `pid` is open on (`3 -> pipe:[1234]`), for a failure message.
    static func descriptorTargets(of pid: Int32) -> [String] {
        let directory = "/proc/\(pid)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.sorted { (Int($0) ?? 0) < (Int($1) ?? 0) }.map { name in
            "\(name) -> " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + name)) ?? "?")
        }
    }

    static func state(of pid: Int32) -> String? { statFields(pid)?.state }

    /// Waits until `pid` is frozen — its cgroup v2 says `frozen 1` in cgroup.events (woken by
    /// inotify on that file), or it is stopped (`T`, the SIGSTOP fallback) — at most `timeout`.
    static func waitUntilFrozen(_ pid: Int32, timeout: Double = 10) -> Bool {
        let events = cgroupEventsPath(of: pid)
        let waiter = events.flatMap { InotifyWaiter.fileGrowth($0) }
        let deadline = Date().addingTimeInterval(timeout)
        func frozen() -> Bool {
            if let events, let text = try? String(contentsOfFile: events, encoding: .utf8),
               text.contains("frozen 1") { return true }
            return state(of: pid) == "T"
        }
        while Date() < deadline {
            if frozen() { return true }
            // Without a cgroup there is no event for SIGSTOP: look again at least once a second.
            waiter?.wait(seconds: min(1, deadline.timeIntervalSinceNow))
            if waiter == nil { waitForExit(pid, seconds: min(0.05, deadline.timeIntervalSinceNow)) }
        }
        return frozen()
    }

    /// `MOUNT/PATH/cgroup.events` of the cgroup v2 `pid` is in, if there is one.
    private static func cgroupEventsPath(of pid: Int32) -> String? {
        guard let cgroups = try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8),
              let line = cgroups.split(separator: "\n").first(where: { $0.hasPrefix("0::") }),
              let mountinfo = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8),
              let mount = mountinfo.split(separator: "\n").first(where: { $0.contains(" - cgroup2 ") })
        else { return nil }
        let fields = mount.split(separator: " ")
        guard fields.count > 4 else { return nil }
        let path = String(fields[4]) + String(line.dropFirst(3)) + "/cgroup.events"
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// Sleeps in the kernel until `pid` exits or `seconds` pass (pidfd poll).
    private static func waitForExit(_ pid: Int32, seconds: Double) {
        let fd = cshim_pidfd_open(pid)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&entry, 1, Int32(max(0, seconds) * 1000))
    }

    private static func allPids() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }
    }

    private static func statFields(_ pid: Int32) -> (state: String, ppid: Int32)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let rest = text[text.index(after: close)...].split(separator: " ")
        guard rest.count > 2, let ppid = Int32(rest[1]) else { return nil }
        return (String(rest[0]), ppid)
    }
}
