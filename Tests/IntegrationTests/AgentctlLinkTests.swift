// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// agentctl links only what it uses (issue 13): it reads config files and talks to the socket, so
/// it must not need libinotifytools or libsystemd. The module graph keeps it so (AgentCLI depends
/// on AgentPOSIX, never on AgentSystem); this reads the built binaries' dynamic sections to see it.
@Suite struct AgentctlLinkTests {
    /// The `DT_NEEDED` entries of an ELF file, from `readelf -d` (binutils).
    static func neededLibraries(of path: String) throws -> [String] {
        let result = try runCommand("/usr/bin/readelf", ["-d", "-W", path])
        #expect(result.status == 0, "readelf -d \(path) failed: \(result.stderr)")
        return result.stdout.split(separator: "\n").compactMap { line in
            guard line.contains("(NEEDED)"),
                  let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]"), open < close
            else { return nil }
            return String(line[line.index(after: open)..<close])
        }
    }

    @Test func agentctlNeedsNeitherLibinotifytoolsNorLibsystemd() throws {
        let needed = try Self.neededLibraries(of: Binaries.agentctl)
        #expect(!needed.isEmpty, "readelf found no NEEDED entries in \(Binaries.agentctl)")
        let unwanted = needed.filter { $0.hasPrefix("libinotifytools") || $0.hasPrefix("libsystemd") }
        #expect(unwanted.isEmpty, """
            agentctl needs \(unwanted): something in AgentCLI's dependency graph links AgentSystem \
            (or CInotifyTools/CSystemd) again; move what agentctl needs into AgentPOSIX instead
            """)
    }

    /// The same reading of agentd finds libinotifytools, so the check above looks at the right
    /// thing; libsystemd it loads for D-Bus only when there is a bus (issue 17, LazySystemdTests).
    @Test func agentdNeedsLibinotifytoolsButNotLibsystemd() throws {
        let needed = try Self.neededLibraries(of: Binaries.agentd)
        #expect(needed.contains { $0.hasPrefix("libinotifytools") })
        #expect(!needed.contains { $0.hasPrefix("libsystemd") }, """
            agentd needs \(needed.filter { $0.hasPrefix("libsystemd") }): something links libsystemd again; \
            call sd-bus through Sources/CSystemd (csystemd_load, csd_*), never link it
            """)
    }
}
