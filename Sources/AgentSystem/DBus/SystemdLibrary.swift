// SPDX-License-Identifier: Apache-2.0
import CSystemd
import Glibc

/// libsystemd, for sd-bus only, loaded by the first connection to a bus that is there:
/// an agent on a machine without a bus never maps it and the libraries it needs (about 1.2 MB).
enum SystemdLibrary {
    /// Loads it once per process; throws what failed and what to do. The D-Bus inputs that need it
    /// then report themselves unavailable, as they do when there is no bus.
    static func load() throws(BusError) {
        var why = [CChar](repeating: 0, count: 512)
        guard csystemd_load(&why, why.count) != 0 else { return }
        let library = String(cString: CSYSTEMD_LIBRARY)
        let reason = why.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { String(cString: $0) } ?? "unknown"
        }
        throw BusError(name: nil, message: "cannot load \(library) for D-Bus (\(reason)): install the libsystemd0 package, then restart agentd")
    }

    /// Whether it has been loaded in this process.
    static var isLoaded: Bool { csystemd_is_loaded() != 0 }
}

extension BusAddress {
    /// The socket file of a plain `unix:path=FILE` address (the system bus's default), which
    /// can be checked for before loading sd-bus; nil for any other form, which sd-bus parses.
    var plainSocketPath: String? {
        let text = description
        let prefix = "unix:path="
        guard text.hasPrefix(prefix) else { return nil }
        let path = text.dropFirst(prefix.count)
        // Several addresses, more keys or %-escapes: leave them to sd-bus.
        guard !path.isEmpty, !path.contains(where: { $0 == ";" || $0 == "," || $0 == "%" }) else { return nil }
        return String(path)
    }

    /// Throws what connecting would (`connect(2)`'s ENOENT) when the bus's socket file is not
    /// there, without loading libsystemd for it.
    func checkSocketExists() throws(BusError) {
        guard let path = plainSocketPath, access(path, F_OK) != 0 else { return }
        let code = errno
        throw BusError(call: "connect to \(self)", result: -code)
    }
}
