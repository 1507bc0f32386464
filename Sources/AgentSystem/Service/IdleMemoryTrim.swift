// SPDX-License-Identifier: Apache-2.0
import AgentPOSIX
import CShim
import Glibc

/// What an idle agent gives back to the kernel: the heap's free pages (`malloc_trim`) and the
/// clean pages of its code and read-only data (`MADV_PAGEOUT` on every read-only file mapping).
/// Start-up touches far more code than an idle agent needs; without this those pages stay
/// resident until memory runs short. The kernel only reclaims pages no other process maps (the
/// C library stays) and, for file pages, only in files the agent could write (root's
/// `/usr/sbin/agentd`; a per-user agent's trim releases only its heap). The next wake reads back
/// what it needs.
public enum IdleMemoryTrim {
    public struct Outcome: Equatable, Sendable {
        /// Bytes of read-only file mappings the kernel was asked to reclaim.
        public var advisedBytes = 0
        /// The first refusal, if any (EINVAL before Linux 5.4: nothing is reclaimed there).
        public var refusal: SystemError?
    }

    /// One read-only, private, file-backed mapping of `/proc/self/maps`.
    struct Mapping: Equatable {
        var start: UInt
        var end: UInt
    }

    public static func trim(mapsPath: String = "/proc/self/maps") -> Outcome {
        _ = cshim_malloc_trim()
        var outcome = Outcome()
        guard let maps = SmallFile.read(mapsPath, limit: 1 << 22) else { return outcome }
        for mapping in readOnlyFileMappings(maps) {
            let length = Int(mapping.end - mapping.start)
            if cshim_madvise_pageout(mapping.start, length) == 0 {
                outcome.advisedBytes += length
            } else if outcome.refusal == nil {
                outcome.refusal = SystemError(call: "madvise(MADV_PAGEOUT)", errno: errno)
            }
        }
        return outcome
    }

    /// The mappings of a `/proc/PID/maps` text whose pages can be read back from their file:
    /// not writable, private, named by an absolute path (not `[heap]`, `[vdso]` or anonymous).
    static func readOnlyFileMappings(_ maps: String) -> [Mapping] {
        maps.split(separator: "\n").compactMap { line -> Mapping? in
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            // The path is padded with spaces to a column.
            guard fields.count == 6, fields[5].drop(while: { $0 == " " }).first == "/" else { return nil }
            let perms = Array(fields[1].utf8)
            guard perms.count == 4, perms[1] != UInt8(ascii: "w"), perms[3] == UInt8(ascii: "p") else { return nil }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16),
                  end > start else { return nil }
            return Mapping(start: start, end: end)
        }
    }
}
