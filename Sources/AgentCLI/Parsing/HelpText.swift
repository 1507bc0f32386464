// SPDX-License-Identifier: Apache-2.0
/// `--help` text generated from the command tree.
public enum HelpText {
    public static func render(_ node: CommandSpec, path: [String], inherited: [OptionSpec], tool: String = "agentctl") -> String {
        var lines: [String] = []
        let command = ([tool] + path).joined(separator: " ")
        var usage = command
        if !node.subcommands.isEmpty && node.run == nil { usage += " <command>" }
        if !(node.options + inherited).isEmpty { usage += " [options]" }
        for argument in node.arguments {
            let name = argument.name + (argument.isRepeated ? "…" : "")
            usage += argument.isOptional ? " [\(name)]" : " \(name)"
        }
        if node.acceptsPassthrough { usage += " [-- ARGS…]" }
        lines.append("\(node.abstract)")
        lines.append("")
        lines.append("Usage: \(usage)")
        if !node.discussion.isEmpty {
            lines.append("")
            lines.append(node.discussion)
        }
        if !node.subcommands.isEmpty {
            lines.append("")
            lines.append("Commands:")
            let width = (node.subcommands.map(\.name.count).max() ?? 0) + 2
            for child in node.subcommands {
                lines.append("  " + pad(child.name, width) + child.abstract)
            }
        }
        if !node.arguments.isEmpty {
            lines.append("")
            lines.append("Arguments:")
            let width = (node.arguments.map(\.name.count).max() ?? 0) + 2
            for argument in node.arguments {
                lines.append("  " + pad(argument.name, width) + argument.help)
            }
        }
        let options = node.options + inherited
        lines.append("")
        lines.append("Options:")
        let labels = options.map(label) + ["-h, --help"]
        let width = (labels.map(\.count).max() ?? 0) + 2
        for (option, text) in zip(options, labels) {
            lines.append("  " + pad(text, width) + option.help)
        }
        lines.append("  " + pad("-h, --help", width) + "Show this help.")
        if !node.examples.isEmpty {
            lines.append("")
            lines.append("Examples:")
            lines.append(contentsOf: node.examples.map { "  " + $0 })
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func label(_ option: OptionSpec) -> String {
        var text = option.short.map { "-\($0), " } ?? "    "
        text += "--\(option.long)"
        if let value = option.valueName { text += " \(value)" }
        return text
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
