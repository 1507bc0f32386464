import AgentCore
import Glibc

/// `agentctl lowpower on|off|auto`, kept in `STATE_DIR/lowpower` so it outlives a restart
/// like `pause` does. A missing or unreadable file means `auto`.
struct LowPowerSetting {
    let path: String

    init(stateDirectory: String) {
        path = stateDirectory + "/lowpower"
    }

    func load() -> LowPowerMode {
        guard let file = fopen(path, "r") else { return .auto }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 16)
        guard fgets(&buffer, 16, file) != nil else { return .auto }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return LowPowerMode(rawValue: text.trimmingCharacters(in: " \n")) ?? .auto
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

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
