// SPDX-License-Identifier: Apache-2.0
@testable import AgentCore
import Testing

/// `MetricsFile=` and `MetricsInterval=` in agentd.conf (issue #16).
struct MetricsSettingsTests {
    func parse(_ text: String) -> ConfigParseResult<AgentSettings> {
        AgentSettings.parse(Array(text.utf8), path: "agentd.conf", context: privilegedContext, facts: FakeFacts())
    }

    @Test func noMetricsFileByDefaultAndAFifteenSecondInterval() throws {
        let settings = try #require(parse("[Agent]\n").value)
        #expect(settings.metricsFile == nil)
        #expect(settings.metricsInterval == .seconds(15))
    }

    @Test func anAbsolutePathAndAnIntervalAreTaken() throws {
        let settings = try #require(parse("[Agent]\nMetricsFile=/var/lib/prometheus/node-exporter/agentd.prom\nMetricsInterval=1min\n").value)
        #expect(settings.metricsFile == "/var/lib/prometheus/node-exporter/agentd.prom")
        #expect(settings.metricsInterval == .seconds(60))
    }

    @Test func aRelativeMetricsFileIsAnErrorThatShowsAnAbsoluteOne() {
        let result = parse("[Agent]\nMetricsFile=agentd.prom\n")
        #expect(result.value == nil)
        #expect(result.diagnostics.contains { $0.line == 2 && $0.message.contains("not an absolute file path") && $0.message.contains("MetricsFile=/var/lib/") })
    }

    @Test func anEmptyMetricsFileMeansNoFile() throws {
        #expect(try #require(parse("[Agent]\nMetricsFile=\n").value).metricsFile == nil)
    }

    @Test func anIntervalBelowOneSecondOrZeroIsRefused() {
        let short = parse("[Agent]\nMetricsInterval=500ms\n")
        #expect(short.value == nil)
        #expect(short.diagnostics.contains { $0.message.contains("shorter than 1s") })
        #expect(parse("[Agent]\nMetricsInterval=0\n").value == nil)
        #expect(parse("[Agent]\nMetricsInterval=often\n").value == nil)
    }
}
