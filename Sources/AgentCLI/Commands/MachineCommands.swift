// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol

/// `agentctl lowpower on|off|auto` and `agentctl resources`: the machine as the policy sees it
/// (DESIGN §6), and the one lever a person has over it.
enum MachineCommands {
    static let modes = ["on", "off", "auto"]

    static let lowpower = CommandSpec(
        name: "lowpower", abstract: "Force low-power mode on or off, or let it follow the machine again (root).",
        discussion: """
        In low-power mode refresh intervals stretch ×4 and processing work waits unless on AC.
        on and off hold until agentctl lowpower auto; auto follows /sys/firmware/acpi/platform_profile
        (low-power) or power-profiles-daemon. The choice outlives an agentd restart.
        agentctl status shows the mode and where it comes from.
        """,
        examples: ["agentctl lowpower on", "agentctl lowpower auto"],
        arguments: [ArgumentSpec(name: "on|off|auto", help: "on or off to decide, auto to follow the machine.",
                                 validate: { word in
                                     modes.contains(word) ? nil : "\"\(word)\" is not a mode (on, off, auto)"
                                 })],
        run: { parsed, context in
            let mode = parsed.argument(0) ?? ""
            guard let chosen = LowPowerMode(rawValue: mode) else {
                throw UsageError(message: "\"\(mode)\" is not a mode (on, off, auto)", commandPath: ["lowpower"])
            }
            let answer = try context.request(ControlRequest.lowpower(chosen))
            context.out(context.style.success(DisplayText.sanitized(try answer.done().message)))
            return 0
        })

    static let resources = CommandSpec(
        name: "resources", abstract: "Show the GPUs Resources=gpu can use, and the inputs the policy decides from.",
        discussion: """
        A job with Resources=gpu waits ("resource gpu") on a machine without a GPU, and
        agentctl submit --strategy fail refuses it (exit 5).
        """,
        examples: ["agentctl resources", "agentctl resources --json"],
        options: [jsonOption],
        run: { parsed, context in
            let (gpus, inputs) = try context.request(ControlRequest.resources).resources()
            let report = ResourcesReport(gpus: gpus, inputs: inputs)
            if parsed.flag("json") {
                context.out(try MessageCoding.encodePretty(report))
            } else {
                context.out(render(report, context: context))
            }
            return 0
        })

    /// The GPUs as a table (or a line saying there is none and what that means), then the inputs.
    static func render(_ report: ResourcesReport, context: CommandContext) -> String {
        let style = context.style
        var lines: [String] = []
        if report.gpus.isEmpty {
            lines.append(style.warning("No GPU found: refresh and processing jobs with Resources=gpu wait"))
            lines.append(style.warning("(\"resource gpu\"); agentctl submit refuses continued ones (exit 5)."))
        } else {
            let rows = report.gpus.map { [Table.Cell($0.name), Table.Cell($0.detail)] }
            lines.append(Table(columns: ["GPU", "DRIVER / DEVICE"], rows: rows).render(width: context.terminalWidth, style: style))
        }
        lines.append("")
        if let inputs = report.inputs {
            lines.append("Inputs:")
            lines += InputsView.block(inputs, width: context.terminalWidth).map { $0.rendered(style) }
        } else {
            lines.append(style.dim("Inputs: not reported by this agentd (it is older than agentctl; restart agentd after an upgrade)"))
        }
        return lines.joined(separator: "\n")
    }
}

/// `agentctl resources --json`.
struct ResourcesReport: Codable {
    var gpus: [GPUSummary]
    var inputs: MachineInputs?
}
