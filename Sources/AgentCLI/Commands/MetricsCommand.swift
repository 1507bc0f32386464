// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

/// `agentctl metrics`: the agent answers with its figures (`ControlResponse.metrics`) and
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
            let response = try context.request(ControlRequest.metrics)
            guard let snapshot = response.metrics else {
                throw CommandFailure(exitStatus: 1, message: "the agent answered without metrics: it is older than "
                    + "this agentctl; restart agentd after upgrading")
            }
            context.out(parsed.flag("json") ? try MessageCoding.encodePretty(snapshot) : PrometheusText.render(snapshot))
            return 0
        })
}
