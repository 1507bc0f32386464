// SPDX-License-Identifier: Apache-2.0
// Scheduler core benchmark (issue #4): the pure `Scheduler` driven through 24 hours of virtual
// time with N jobs, timing each `handle` call and each `waiting(now:)` query with the real clock.
// Usage: scheduler-bench JOBS  → one JSON line of samples summarised as p50/p99 per event kind.
import AgentCore
import Glibc

let jobCount = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 10_000

var settings = AgentSettings(maxConcurrent: 8, dailyBudget: 1_000_000)
settings.triggerSpacing = .seconds(900)

// Half the jobs run on intervals from 15 min to ~4 h (spread so that ticks keep coming), half
// only when triggered.
func jobName(_ i: Int) -> String {
    let digits = String(i)
    return "local.job" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits
}

var definitions: [JobDefinition] = []
for i in 0..<jobCount {
    guard let id = Identifier(rawValue: jobName(i)) else { fatalError() }
    var job = JobDefinition(identifier: id, kind: i % 4 == 0 ? .refresh : .processing, exec: ["/bin/true"])
    if i % 2 == 0 { job.interval = .seconds(900 + (i * 37) % 14_400) }
    definitions.append(job)
}

struct Simulation {
    let runLength = 5.0
    let horizon = 86_400.0
    var scheduler: Scheduler
    var samples: [String: [Double]] = [:]
    let clock = ContinuousClock()
    var now = SchedulerTime(seconds: 1_800_000_000)
    var nextRun: UInt64 = 1
    var live: [(end: SchedulerTime, id: Identifier, run: RunID)] = []

    mutating func handle(_ event: SchedulerEvent, _ label: String) {
        let begin = clock.now
        let actions = scheduler.handle(event, now: now)
        samples[label, default: []].append((clock.now - begin).milliseconds)
        for case .launch(let order) in actions {
            let run = RunID(nextRun)
            nextRun += 1
            live.append((now + .seconds(runLength), order.job.identifier, run))
            handle(.runStarted(order.job.identifier, run, reason: order.reason), "run-started")
        }
    }

    mutating func run(_ definitions: [JobDefinition], jobCount: Int) {
        let start = now
        handle(.jobsChanged(definitions), "jobs-changed")
        var nextTrigger = now + .seconds(7)
        var triggerIndex = 1
        var nextQuery = now + .seconds(300)
        while now.seconds - start.seconds < horizon {
            live.sort { $0.end < $1.end }
            var candidates: [SchedulerTime] = [nextTrigger, nextQuery]
            if let deadline = scheduler.nextDeadline { candidates.append(deadline) }
            if let first = live.first { candidates.append(first.end) }
            guard let next = candidates.min() else { break }
            now = max(now, next)
            if let first = live.first, first.end <= now {
                live.removeFirst()
                handle(.runEnded(first.id, first.run, .success), "run-ended")
            } else if let deadline = scheduler.nextDeadline, deadline <= now {
                handle(.tick, "tick")
            } else if nextTrigger <= now {
                guard let id = Identifier(rawValue: jobName(triggerIndex % jobCount)) else { break }
                triggerIndex += 2
                handle(.trigger(id), "trigger")
                nextTrigger = now + .seconds(7)
            } else {
                let begin = clock.now
                let count = scheduler.waitingSummary(now: now, limit: 100).total
                samples["waiting", default: []].append((clock.now - begin).milliseconds)
                samples["waiting-count", default: []].append(Double(count))
                nextQuery = now + .seconds(300)
            }
        }
    }
}

extension Duration {
    var milliseconds: Double {
        Double(components.seconds) * 1e3 + Double(components.attoseconds) / 1e15
    }
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
}

if CommandLine.arguments.contains("--start-up") {
    // The agent's first decisions with every job due at once (new interval jobs, the default
    // daily budget of 48): the load, then the first tick; the median of 7 fresh schedulers.
    let clock = ContinuousClock()
    let now = SchedulerTime(seconds: 1_800_000_000)
    let due = definitions.map { definition -> JobDefinition in
        var job = definition
        job.interval = .seconds(3_600)
        return job
    }
    var samples: [String: [Double]] = [:]
    for _ in 0..<7 {
        var scheduler = Scheduler(settings: AgentSettings(), calendar: LocalCalendar(utcOffsetSeconds: 0), seed: 7)
        for (label, event) in [("jobs-changed", SchedulerEvent.jobsChanged(due)), ("first-tick", .tick)] {
            let begin = clock.now
            _ = scheduler.handle(event, now: now)
            samples[label, default: []].append((clock.now - begin).milliseconds)
        }
    }
    let parts = samples.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\(percentile($0.value, 0.5))" }
    print("{\"jobs\":\(jobCount),\(parts.joined(separator: ","))}")
    exit(0)
}

var simulation = Simulation(scheduler: Scheduler(settings: settings, calendar: LocalCalendar(utcOffsetSeconds: 0), seed: 7))
simulation.run(definitions, jobCount: jobCount)
let samples = simulation.samples

var parts: [String] = []
for (label, values) in samples.sorted(by: { $0.key < $1.key }) where !values.isEmpty {
    parts.append("\"\(label)\":{\"n\":\(values.count),\"p50\":\(percentile(values, 0.5)),\"p99\":\(percentile(values, 0.99)),\"max\":\(percentile(values, 1))}")
}
print("{\"jobs\":\(jobCount),\(parts.joined(separator: ","))}")
