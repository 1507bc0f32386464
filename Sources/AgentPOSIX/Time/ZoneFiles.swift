// SPDX-License-Identifier: Apache-2.0
import AgentCore
import Glibc
import Synchronization

/// The system's zone files (`/usr/share/zoneinfo/NAME`, or `$TZDIR`), read for the zones
/// `Schedule=` names: each file once per process (10,000 jobs at `09:00 Europe/Berlin` share one
/// copy of its rules). A name that is not a plausible zone name is never opened, so `..` cannot
/// reach outside the directory.
public enum ZoneFiles {
    public static let defaultDirectory = "/usr/share/zoneinfo"
    /// TZif files are a few kilobytes; more than this is not one.
    static let maxBytes = 256 << 10

    private static let cache = Mutex<[String: ZoneRules?]>([:])

    /// The lookup the config loader and `agentctl calendar` hand to the core's parsers.
    public static let lookup = ZoneLookup { name in rules(named: name) }

    public static var directory: String {
        guard let value = getenv("TZDIR"), let text = String(validatingCString: value), !text.isEmpty else {
            return defaultDirectory
        }
        return text
    }

    /// The rules of zone `name`, or nil when there is no such zone file.
    public static func rules(named name: String) -> ZoneRules? {
        guard ZoneLookup.isPlausibleName(name), !name.contains("..") else { return nil }
        if let cached = cache.withLock({ $0[name] }) { return cached }
        let rules = read(directory + "/" + name).flatMap { ZoneRules(tzif: $0) }
        cache.withLock { $0[name] = rules }
        return rules
    }

    static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG, Int(status.st_size) <= maxBytes else {
            return nil
        }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(fd, buffer.baseAddress! + filled, buffer.count - filled)
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            filled += count
        }
        return bytes
    }
}
