// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

/// One event as `agentctl events` prints it for people: local time, identifier, run, what
/// happened (`12:00:01.123  local.export  r000003  ended: success`). Pure, for tests.
enum EventLine {
    static func text(_ event: AgentEvent, clock: DisplayClock) -> String {
        let seconds = DisplayClock.floorDivide(event.time, 1000)
        let millis = event.time - seconds * 1000
        let when = clock.format(seconds, "%H:%M:%S") + "." + String(String(millis + 1000).dropFirst())
        let identifier = event.identifier.map(DisplayText.sanitized) ?? "-"
        let run = event.runID.map(DisplayText.sanitized) ?? "-"
        return "\(when)  \(identifier)  \(run)  \(what(event, clock: clock))"
    }

    static func what(_ event: AgentEvent, clock: DisplayClock = .system) -> String {
        func clean(_ text: String?) -> String { DisplayText.sanitized(text ?? "") }
        let request = event.requestID.map { "request \($0)" }
        switch event.eventKind {
        case .runStarted?:
            let details = [event.reason?.description, request].compactMap { $0 }.joined(separator: ", ")
            return "started" + (details.isEmpty ? "" : " (\(clean(details)))") + (event.title.map { ": \(clean($0))" } ?? "")
        case .runProgress?: return "progress \(Int((event.progress ?? 0) * 100))%"
        case .runTitle?: return "title: \(clean(event.title))"
        case .runSubtitle?: return "subtitle: \(clean(event.subtitle))"
        case .runStatus?: return "status: \(clean(event.status))"
        case .runEnded?: return "ended: \(clean(event.stopReason?.description))"
        case .runOutput?:
            return "output: " + (event.lines ?? []).map(clean).joined(separator: " | ")
                + (event.droppedLineCount.map { " (\(DisplayText.plural($0, "line")) left out)" } ?? "")
        case .requestQueued?: return "queued (\(request ?? "request"), position \(event.position ?? 0))"
        case .requestRefused?: return "refused (\(request ?? "request")): \(clean(event.message))"
        case .requestAdded?: return "requested" + requestDetails(event.request, clock: clock)
        case .requestReplaced?: return "requested again, replacing the pending request" + requestDetails(event.request, clock: clock)
        case .requestWithdrawn?: return clean(event.message)
        case .jobRegistered?: return "registered"
        case .jobUpdated?: return "updated"
        case .jobUnregistered?: return "unregistered"
        case .jobError?: return "config error: \(clean(event.message))"
        case .conditionsChanged?:
            return "conditions: " + (event.inputs.map(conditions) ?? "changed")
        case .agentStopping?: return "agentd stopping"
        case .sleep?: return "machine about to sleep: " + clean(event.message)
        case .resume?: return "machine resumed: " + clean(event.message)
        case .overflow?: return "overflow: \(clean(event.message))"
        case nil: return clean(event.type.description)
        }
    }

    /// `power ac, low power on (agentctl), thermal nominal, network up (metered), memory
    /// pressure`: every input policy reads, the ones that hold work back only while they do.
    static func conditions(_ inputs: MachineInputs) -> String {
        var parts = ["power \(DisplayText.sanitized(inputs.power.description))" + (inputs.batteryPercent.map { ", battery \($0) %" } ?? "")]
        if inputs.lowPower { parts.append("low power " + InputsView.lowPower(inputs)) }
        parts.append("thermal \(DisplayText.sanitized(inputs.thermal.description))")
        parts.append("network " + (inputs.network ? "up" : "down") + (inputs.metered == .known(.yes) ? " (metered)" : ""))
        if inputs.memoryPressure { parts.append("memory pressure") }
        if inputs.cpuBusy { parts.append("cpu busy") }
        if let presence = inputs.presence { parts.append("user " + DisplayText.sanitized(presence)) }
        return parts.joined(separator: ", ")
    }

    /// ` (earliest 12:30:00, requires unmetered network, external power)`: the request's own
    /// earliest begin (local time of day) and requirements.
    static func requestDetails(_ request: RunRequestOptions?, clock: DisplayClock) -> String {
        guard let request else { return "" }
        var parts: [String] = []
        if let earliest = request.earliestBegin {
            parts.append("earliest " + clock.format(Int64(earliest.rounded(.down)), "%H:%M:%S"))
        }
        parts += requirements(request)
        return parts.isEmpty ? "" : " (\(parts.joined(separator: ", ")))"
    }

    /// `requires unmetered network`, `requires external power`: what a request adds to its job.
    static func requirements(_ request: RunRequestOptions) -> [String] {
        var parts: [String] = []
        switch request.requiresNetwork {
        case .any?: parts.append("requires network")
        case .unmetered?: parts.append("requires unmetered network")
        case nil: break
        }
        if request.requiresExternalPower == true { parts.append("requires external power") }
        return parts
    }
}
