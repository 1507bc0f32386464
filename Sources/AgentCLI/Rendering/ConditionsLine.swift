/// The power/thermal line of `watch` (and `status`): whatever the agent's status report says about
/// the policy inputs of DESIGN §6 — external power, battery, low-power mode, thermal state,
/// network, pressure.
///
/// It is read from the status answer's raw JSON by field name rather than from `StatusReport`, so
/// when agentd starts reporting one of these fields it shows up here without a change to
/// agentctl. Today's agentd reports none, and the line says so.
public enum ConditionsLine {
    /// The status fields shown, in this order.
    public static let fields = ["power", "battery", "lowPower", "thermal", "network", "pressure"]

    /// `power: ac · battery: level 80, status charging · thermal: nominal`, or nil when the status
    /// carries none of the fields.
    public static func text(from status: JSONValue?) -> String? {
        guard let status else { return nil }
        let parts = fields.compactMap { name -> String? in
            guard let value = status[name], value != .null else { return nil }
            return "\(label(name)): \(value.display)"
        }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    /// `lowPower` → `low power`.
    static func label(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase {
                result += " " + character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }
}
