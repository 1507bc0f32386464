// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem
import Glibc

/// `agentctl lowpower on|off|auto`, kept in `STATE_DIR/lowpower` so it outlives a restart
/// like `pause` does. A missing or unreadable file means `auto`.
struct LowPowerSetting {
    let path: String

    init(stateDirectory: String) {
        path = stateDirectory + "/lowpower"
    }

    func load() -> LowPowerMode {
        SmallFile.value(path).flatMap(LowPowerMode.init(rawValue:)) ?? .auto
    }

    /// Writes through a temporary file and rename, so a crash leaves the old or the new value.
    func save(_ mode: LowPowerMode) -> Bool {
        let temporary = path + ".tmp"
        guard let file = fopen(temporary, "w") else { return false }
        let written = fputs(mode.rawValue + "\n", file) >= 0
        let closed = fclose(file) == 0
        return written && closed && rename(temporary, path) == 0
    }
}
