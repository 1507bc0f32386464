// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol

/// The policy inputs of DESIGN §6 as people read them: power and battery, low-power mode, thermal
/// state, network, pressure, and which kernel sources the agent reads live. `status`, `watch` and
/// `resources` all draw them from the agent's `MachineInputs` through this one type, so the same
/// input reads the same everywhere.
///
/// `status` and `resources` show a labelled block:
/// ```
///   power      battery 15 % (discharging)
///   low power  off (auto)
///   thermal    fair — x86_pkg_temp 82 °C, 8 °C below passive
///   network    up
///   metered    yes (NetworkManager: guess-yes)
///   pressure   none
///   sources    uevent live · thermal-netlink sampled (no thermal family) ·
///              rtnetlink live · psi live · power-profiles unavailable (no system bus) ·
///              networkmanager live
/// ```
/// `watch` packs the same values into a line or two, and names only the sources that are not live.
public enum InputsView {
    /// One input: its label and its value, with the role it is coloured with (nil: plain).
    public struct Item: Sendable, Equatable {
        public var label: String
        public var value: String
        public var role: Style.Role?
    }

    /// Labels are padded to this width in the block (`low power` and two blanks).
    static let labelWidth = 11

    /// Power, low power, thermal, network, metered (from an agentd that says) and pressure, in
    /// that order.
    public static func items(_ inputs: MachineInputs) -> [Item] {
        [Item(label: "power", value: power(inputs), role: powerRole(inputs)),
         Item(label: "low power", value: lowPower(inputs), role: inputs.lowPower ? .warning : nil),
         Item(label: "thermal", value: thermal(inputs), role: thermalRole(inputs.thermal)),
         Item(label: "network", value: inputs.network ? "up" : "down (no default route)",
              role: inputs.network ? nil : .warning)]
            + (metered(inputs).map { [Item(label: "metered", value: $0, role: inputs.metered == .known(.yes) ? .warning : nil)] } ?? [])
            + [Item(label: "pressure", value: pressure(inputs),
                    role: inputs.memoryPressure || inputs.cpuBusy ? .warning : nil)]
            + sleepItems(inputs)
    }

    /// From an agentd that says: `sleep  awake · holding sleep delay, idle block (Exporting)`,
    /// `user  away since 08:33 (2 sessions idle or locked)` or `unknown — RequiresIdle= is PSI
    /// alone (…)`, `wake  armed for Thu 03:00 (local.backup)`; the per-user agent's `notify  on:
    /// last shown for run r000003`.
    static func sleepItems(_ inputs: MachineInputs) -> [Item] {
        var items: [Item] = []
        if let sleep = inputs.sleep {
            var value = DisplayText.sanitized(sleep)
            if let held = inputs.inhibitors, !held.isEmpty {
                value += " · holding " + held.map(DisplayText.sanitized).joined(separator: ", ")
            }
            items.append(Item(label: "sleep", value: value, role: sleep == "awake" ? nil : .warning))
        }
        if let presence = inputs.presence {
            var value = DisplayText.sanitized(presence)
            // Why it is PSI alone is in --json's idleSource; the line stays short.
            if let source = inputs.idleSource, source.hasPrefix("PSI alone") {
                value += " (RequiresIdle= is PSI alone)"
            }
            items.append(Item(label: "user", value: value, role: nil))
        }
        if let wake = inputs.wakeAlarm {
            items.append(Item(label: "wake", value: DisplayText.sanitized(wake), role: wake.hasPrefix("refused") ? .warning : nil))
        }
        if let notifications = inputs.notifications {
            items.append(Item(label: "notify", value: DisplayText.sanitized(notifications),
                              role: notifications.hasPrefix("on") ? nil : .warning))
        }
        return items
    }

    /// `no (NetworkManager: no)`, `yes (NetworkManager: guess-yes)`, `no (no system bus)`: the
    /// state, then where it comes from; nil from an agentd too old to say.
    static func metered(_ inputs: MachineInputs) -> String? {
        guard let state = inputs.metered else { return nil }
        let source = inputs.meteredSource.map(DisplayText.sanitized) ?? ""
        return DisplayText.sanitized(state.description) + (source.isEmpty ? "" : " (\(source))")
    }

    /// `ac`, `ac, battery 80 % (charging)`, `battery 15 % (discharging)`.
    static func power(_ inputs: MachineInputs) -> String {
        var battery: String?
        if let percent = inputs.batteryPercent {
            battery = "battery \(percent) %" + (inputs.batteryStatus.map { " (\(DisplayText.sanitized($0)))" } ?? "")
        } else if let status = inputs.batteryStatus {
            battery = "battery (\(DisplayText.sanitized(status)))"
        }
        switch inputs.power {
        case .known(.ac): return battery.map { "ac, " + $0 } ?? "ac"
        case .known(.battery): return battery ?? "battery"
        case .unknown(let text): return DisplayText.sanitized(text) + (battery.map { ", " + $0 } ?? "")
        }
    }

    /// On battery and discharging is worth a look: yellow.
    static func powerRole(_ inputs: MachineInputs) -> Style.Role? {
        inputs.power == .known(.battery) && inputs.batteryStatus != "charging" ? .warning : nil
    }

    /// `off (auto)`, `on (auto, platform_profile)`, `on (agentctl)` — the state, then where it
    /// comes from. The agent says `auto (platform_profile)` or `on (agentctl)`.
    static func lowPower(_ inputs: MachineInputs) -> String {
        let state = inputs.lowPower ? "on" : "off"
        let source = DisplayText.sanitized(inputs.lowPowerSource)
        if source.isEmpty { return state }
        // `on (agentctl)` already starts with the state.
        if source.hasPrefix(state + " (") { return source }
        // `auto (platform_profile)` → `auto, platform_profile`.
        var origin = source
        if let open = origin.firstIndex(of: "("), origin.hasSuffix(")") {
            let head = String(origin[..<open].reversed().drop(while: { $0 == " " }).reversed())
            let inner = origin[origin.index(after: open)..<origin.index(before: origin.endIndex)]
            origin = head.isEmpty ? String(inner) : head + ", " + inner
        }
        return "\(state) (\(origin))"
    }

    /// `nominal`, `fair — x86_pkg_temp 82 °C, 8 °C below passive`.
    static func thermal(_ inputs: MachineInputs) -> String {
        var text = DisplayText.sanitized(inputs.thermal.description)
        var detail: [String] = []
        if let zone = inputs.hottestZone {
            detail.append(DisplayText.sanitized(zone) + (inputs.hottestCelsius.map { " " + celsius($0) } ?? ""))
        } else if let temperature = inputs.hottestCelsius {
            detail.append(celsius(temperature))
        }
        if let margin = inputs.marginCelsius {
            let trip = inputs.marginTrip.map(DisplayText.sanitized) ?? "the next trip"
            if margin > 0 {
                detail.append("\(celsius(margin)) below \(trip)")
            } else if margin < 0 {
                detail.append("\(celsius(-margin)) above \(trip)")
            } else {
                detail.append("at \(trip)")
            }
        }
        if !detail.isEmpty { text += " — " + detail.joined(separator: ", ") }
        return text
    }

    /// Fair is worth a look (yellow); serious and critical hold work back (red).
    static func thermalRole(_ state: Reported<ThermalState>) -> Style.Role? {
        switch state {
        case .known(.nominal): return nil
        case .known(.fair): return .warning
        default: return .error
        }
    }

    /// `82 °C`, `82.5 °C`: whole degrees unless the tenth matters.
    static func celsius(_ value: Double) -> String {
        guard value.isFinite else { return "? °C" }
        let tenths = (value * 10).rounded()
        if Int64(tenths) % 10 == 0 { return "\(Int64(tenths) / 10) °C" }
        let sign = tenths < 0 ? "-" : ""
        let magnitude = Int64(abs(tenths))
        return "\(sign)\(magnitude / 10).\(magnitude % 10) °C"
    }

    /// `none`, `memory`, `cpu busy`, `memory, cpu busy`.
    static func pressure(_ inputs: MachineInputs) -> String {
        var parts: [String] = []
        if inputs.memoryPressure { parts.append("memory") }
        if inputs.cpuBusy { parts.append("cpu busy") }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }

    /// `uevent live`, `thermal-netlink sampled (no thermal family)`; not live is yellow.
    public static func source(_ source: InputSource) -> StyledText {
        var text = DisplayText.sanitized(source.name) + " " + source.state.rawValue
        if source.state != .live, let detail = source.detail, !detail.isEmpty {
            text += " (\(DisplayText.sanitized(detail)))"
        }
        return StyledText(text, source.state == .live ? nil : .warning)
    }

    /// The sources as shown: a monitor unavailable for the system bus's own reason says `no
    /// system bus` instead of repeating it (the `system-bus` source says it once); `--json`
    /// keeps every detail whole.
    static func shownSources(_ sources: [InputSource]) -> [StyledText] {
        let bus = sources.first { $0.name == InputSource.systemBusName && $0.state != .live }?.detail
        return sources.map { item in
            guard let bus, !bus.isEmpty, item.name != InputSource.systemBusName, item.state != .live,
                  let detail = item.detail, detail.hasPrefix(bus) else { return source(item) }
            return source(InputSource(name: item.name, state: item.state,
                                      detail: "no system bus" + detail.dropFirst(bus.count)))
        }
    }

    /// The labelled block of `status` and `resources`, each line starting with `indent`; the
    /// sources wrap under their value column to fit `width` (nil: one line).
    public static func block(_ inputs: MachineInputs, indent: String = "  ", width: Int?) -> [StyledText] {
        var lines = items(inputs).map { item in
            let line = StyledText(indent + DisplayText.pad(item.label, to: labelWidth)) + StyledText(item.value, item.role)
            return width.map { line.cut(to: $0) } ?? line
        }
        if !inputs.sources.isEmpty {
            let valueColumn = indent + String(repeating: " ", count: labelWidth)
            lines += packed(shownSources(inputs.sources),
                            first: StyledText(indent + DisplayText.pad("sources", to: labelWidth)),
                            continuation: StyledText(valueColumn), separator: " · ", width: width)
        }
        return lines
    }

    /// The line or two of `watch`: every input, packed to `width`, then the sources that are not
    /// live (the ones worth a look), or nothing more when every source is live.
    public static func summary(_ inputs: MachineInputs, width: Int?) -> [StyledText] {
        // The sleep, user, wake and notify lines only when they hold something back or fail:
        // watch is small.
        let quiet: Set<String> = inputs.sleep == "awake" ? ["sleep", "user", "wake", "notify"] : ["user", "wake", "notify"]
        let parts = items(inputs).filter { !quiet.contains($0.label) || $0.role != nil }.map { item in
            StyledText(item.label + " ", .dim) + StyledText(item.value, item.role)
        }
        var lines = packed(parts, first: StyledText(), continuation: StyledText("  "), separator: " · ", width: width)
        let degraded = inputs.sources.filter { $0.state != .live }
        if !degraded.isEmpty {
            lines += packed(shownSources(degraded), first: StyledText("sources ", .dim),
                            continuation: StyledText("        "), separator: " · ", width: width)
        }
        return lines
    }

    /// `parts` joined by `separator`, starting a new line (after `continuation`) where the next
    /// part would pass `width`; a part too wide for a line of its own is cut. A line that goes on
    /// ends in the separator's mark (` ·`), so no line starts with punctuation.
    static func packed(_ parts: [StyledText], first: StyledText, continuation: StyledText,
                       separator: String, width: Int?) -> [StyledText] {
        let mark = String(separator.reversed().drop(while: { $0 == " " }).reversed())
        var lines: [StyledText] = []
        var line = first
        var lineHasPart = false
        for part in parts {
            if !lineHasPart {
                line += part
                lineHasPart = true
            } else if let width, line.width + DisplayText.width(separator) + part.width > width {
                lines.append(line + StyledText(mark, .dim))
                line = continuation + part
            } else {
                line += StyledText(separator, .dim) + part
            }
        }
        if lineHasPart { lines.append(line) }
        return width.map { width in lines.map { $0.cut(to: width) } } ?? lines
    }
}
