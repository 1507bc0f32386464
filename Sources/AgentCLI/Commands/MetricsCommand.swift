// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

/// `agentctl metrics`: the agent answers with its figures (`ControlAnswer.metrics`) and
/// agentctl renders them in the Prometheus text format, the same text the agent writes to
/// `MetricsFile=`.
enum MetricsCommand {
    static let spec = CommandSpec(
        name: "metrics", abstract: "Print the agent's state in the Prometheus text format.",
        discussion: """
        The same text the agent keeps in MetricsFile= (agentd.conf) for node_exporter's textfile
        collector; see docs/fleet.md. Counters count from the agent's start. --json prints the
        figures the text is made from.
        """,
        examples: ["agentctl metrics", "agentctl metrics | promtool check metrics", "agentctl metrics --json"],
        options: [jsonOption],
        run: { parsed, context in
            let snapshot = try context.allMetrics()
            context.out(parsed.flag("json") ? try MessageCoding.encodePretty(snapshot) : PrometheusText.render(snapshot))
            return 0
        })
}
