// SPDX-License-Identifier: Apache-2.0
// `swift run -c release json-bench [jobs] [rounds]`: encodes (and decodes) a `status` answer with
// `jobs` jobs at work or waiting, with FoundationEssentials' JSONEncoder and with AgentJSON, and
// prints the median and best time of each; then AgentJSON on hostile lines (a 1 MB string of
// escapes, 100,001 keys, 200,001 duplicate keys), which must take linear time: quadratic work on
// them takes minutes. Not a test: timings depend on the machine.
import AgentJSON
import AgentProtocol
import Foundation

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let jobCount = arguments.first ?? 10_000
let rounds = arguments.dropFirst().first ?? 30
let now: Int64 = 1_796_045_400

func report(jobs: Int) -> ControlResponseFields {
    let running = (0..<jobs / 2).map { index -> RunSummary in
        let deadline: Int64? = index % 3 == 0 ? nil : now + 600
        let progress: Double? = index % 2 == 0 ? Double(index % 100) / 100 : nil
        let title: String? = index % 5 == 0 ? "Job \(index) / export" : nil
        return RunSummary(runID: "r\(100_000 + index)", identifier: "com.example.job\(index)", kind: .processing,
                          reason: .known(.scheduled), pid: Int32(10_000 + index), startedAt: now - Int64(index),
                          deadline: deadline, progress: progress, title: title)
    }
    let pending = (jobs / 2..<jobs).map { index -> PendingSummary in
        let earliest: Double? = index % 3 == 0 ? Double(now) + Double(index) / 8 : nil
        return PendingSummary(identifier: "com.example.job\(index)", kind: index % 2 == 0 ? .refresh : .processing,
                              waitingFor: index % 4 == 0 ? "external power" : "interval (earliest 14:05)",
                              earliestBegin: earliest)
    }
    let status = StatusReport(version: "0.1.0", pid: 812, startedAt: now - 200_000, uptimeSeconds: 200_000,
                              configDirectory: "/etc/agentd", stateDirectory: "/var/lib/agentd",
                              socketPath: "/run/agentd/agentd.sock", manifestCount: 2, jobCount: jobs,
                              diagnostics: [], stateError: nil, running: running, pending: pending,
                              pendingCount: pending.count, paused: false)
    return ControlResponseFields(.success(.status(status)))
}

/// Median and best of `rounds` runs of `body`, in milliseconds.
func time(_ body: () throws -> Int) rethrows -> (median: Double, best: Double, size: Int) {
    var samples: [Double] = []
    var size = 0
    for _ in 0..<rounds {
        let start = ContinuousClock.now
        size = try body()
        let elapsed = ContinuousClock.now - start
        samples.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
    }
    samples.sort()
    return (samples[samples.count / 2], samples[0], size)
}

let value = report(jobs: jobCount)
let foundation = JSONEncoder()
foundation.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
let ours = JSONLineEncoder()
let line = try ours.encode(value)
guard line == Array(try foundation.encode(value)) else {
    print("the encoders disagree")
    exit(1)
}

let rows: [(String, (median: Double, best: Double, size: Int))] = [
    ("encode JSONEncoder", try time { try foundation.encode(value).count }),
    ("encode AgentJSON", try time { try ours.encode(value).count }),
    ("decode JSONDecoder", try time { try JSONDecoder().decode(ControlResponseFields.self, from: Data(line)).response(to: .status).get().status().jobCount }),
    ("decode AgentJSON", try time { try JSONLineDecoder().decode(ControlResponseFields.self, from: line).response(to: .status).get().status().jobCount }),
]
let long = Array(("\"" + String(repeating: "a\\n", count: 500_000) + "\"").utf8)
var manyText = "{"
for index in 0..<100_000 { manyText += "\"k\(index)\":\(index)," }
let many = Array((manyText + "\"k\":0}").utf8)
let duplicate = Array(("{" + String(repeating: "\"k\":1,", count: 200_000) + "\"k\":2}").utf8)
let hostile: [(String, (median: Double, best: Double, size: Int))] = [
    ("1 MB of escapes", try time { try JSONLineDecoder().decode(String.self, from: long).utf8.count }),
    ("100,001 keys", try time { try JSONLineDecoder().decode([String: Int].self, from: many).count }),
    ("200,001 same keys", try time { try JSONLineDecoder().decode([String: Int].self, from: duplicate).count }),
]
print("status with \(jobCount) jobs, \(line.count) bytes, \(rounds) rounds")
for (name, result) in rows + hostile {
    print(name.padding(toLength: 20, withPad: " ", startingAt: 0)
          + " median \(String(format: "%7.2f", result.median)) ms   best \(String(format: "%7.2f", result.best)) ms")
}
