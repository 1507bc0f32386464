// SPDX-License-Identifier: Apache-2.0
/// `RandomizedDelay=`: a per-job offset in `[0, span)`, the same for a job on one machine every
/// time (like systemd's `FixedRandomDelay=`), different across machines and jobs, so a fleet
/// spreads out while one machine stays predictable. Derived from the machine id (the shell
/// reads `/etc/machine-id` once) and the identifier.
enum StableDelay {
    static func offset(span: Duration, machineID: String, identifier: Identifier) -> Duration {
        let seconds = span.schedulerSeconds
        guard seconds > 0, seconds.isFinite else { return .zero }
        let unit = Double(hash(machineID, identifier.rawValue) >> 11) * 0x1.0p-53  // [0, 1)
        // Whole milliseconds: the offset prints and compares the same everywhere.
        let milliseconds = (unit * seconds * 1000).rounded(.down)
        return .milliseconds(Int64(min(milliseconds, 9e15)))
    }

    /// FNV-1a over `machineID`, a NUL and `identifier`, then SplitMix64's finalizer so that
    /// identifiers differing in one byte land far apart.
    static func hash(_ machineID: String, _ identifier: String) -> UInt64 {
        var value: UInt64 = 0xCBF2_9CE4_8422_2325
        func mix(_ byte: UInt8) {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01B3
        }
        for byte in machineID.utf8 { mix(byte) }
        mix(0)
        for byte in identifier.utf8 { mix(byte) }
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
