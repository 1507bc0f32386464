// SPDX-License-Identifier: Apache-2.0
/// Every job key, one row each, in the order they are read: `Kind=` first, since other keys'
/// defaults depend on it. Adding a key is adding a row (and, for a new setting, its field in
/// `JobExtraSettings`); docs/configuration.md and agentd.job(5) must list it (`JobKeyTableTests`).
enum JobKeyTable {
    static let rows: [JobKey] = identityRows + timingRows + needRows + chainRows + environmentRows
        + limitRows + calendarRows + commandRows + conditionRows + extraRows + sandboxRows

    static let byName: [String: JobKey] = Dictionary(rows.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    static let scalarKeys = rows.filter { $0.shape == .scalar }.map(\.name)
    static let listKeys = rows.filter { $0.shape == .list }.map(\.name)

    static let identityRows: [JobKey] = [
        JobKey("Identifier", default: "required", doc: "the task identifier; a manifest must permit it",
               inDropInHeader: false) { _ in
            // Read by `JobDefinition.parseDetailed` before any other key: every message names the job.
        },
        JobKey("Kind", default: "processing", doc: "refresh, processing or continued") { input in
            input.definition.kind = input.reader.keyword("Kind", default: .processing, noun: "a kind")
        },
        JobKey("Exec", .list, default: "required",
               doc: "argv, systemd's quoting; the first word an absolute path; repeat for more commands, - to let one fail",
               inDropInHeader: false, read: JobDefinition.readExec),
        JobKey("User", default: "DefaultUser= of agentd.conf", doc: "who the plugin runs as",
               read: JobDefinition.readUser),
    ]

    static let timingRows: [JobKey] = [
        JobKey("Interval", default: "none (drop-ins 1d)", doc: "minimum spacing between runs since the last start") { input in
            let kind = input.definition.kind
            let defaultInterval = input.definition.isDropInScript ? JobDefinition.dropInDefaultInterval : nil
            let interval = input.reader.optionalSpan("Interval", default: defaultInterval)
            if kind == .continued, let assignment = input.reader.scalar("Interval"),
               TextBytes.asciiLowercased(assignment.value) != "none"
            {
                input.reader.warning(assignment.line, "Interval: ignored for Kind=continued, which starts "
                    + "only through agentctl submit")
                input.definition.interval = nil
            } else {
                input.definition.interval = kind == .continued ? nil : interval
            }
        },
        JobKey("MaxRuntime", default: "refresh 30s, processing 10min, continued and drop-ins none",
               doc: "then the run is expired; none or infinity for no limit") { input in
            input.definition.maxRuntime = input.reader.optionalSpan(
                "MaxRuntime", default: JobDefinition.defaultMaxRuntime(
                    kind: input.definition.kind, isDropInScript: input.definition.isDropInScript))
        },
        JobKey("GracePeriod", default: "5s", doc: "SIGTERM to SIGKILL; 0 kills at once; infinity never") { input in
            // systemd's TimeoutStopSec=infinity never sends SIGKILL: a converted service's value is accepted.
            input.definition.gracePeriod = input.reader.spanOrNever(
                "GracePeriod", default: JobDefinition.defaultGracePeriod, never: JobDefinition.never)
        },
        JobKey("ProgressTimeout", default: "30s", doc: "continued runs expire without PROGRESS= for this long") { input in
            input.definition.progressTimeout = input.reader.span(
                "ProgressTimeout", default: JobDefinition.defaultProgressTimeout, allowZero: false)
        },
        JobKey("MaxPause", default: "1h", doc: "a paused run still paused after this is expired; infinity never")
        { input in
            input.definition.maxPause = input.reader.spanOrNever(
                "MaxPause", default: JobDefinition.defaultMaxPause, never: JobDefinition.never)
        },
    ]

    static let needRows: [JobKey] = [
        JobKey("RequiresExternalPower", default: "no", doc: "wait for external power") { input in
            input.definition.requiresExternalPower = input.reader.bool("RequiresExternalPower", default: false)
        },
        JobKey("RequiresNetwork", default: "no", doc: "yes: a default route; unmetered: and not metered") { input in
            let network = input.reader.networkRequirement("RequiresNetwork")
            input.definition.requiresNetwork = network != .no
            input.definition.requiresUnmeteredNetwork = network == .unmetered
        },
        JobKey("RequiresIdle", default: "no", doc: "wait until the seat is idle and the CPU not busy") { input in
            input.definition.requiresIdle = input.reader.bool("RequiresIdle", default: false)
        },
        JobKey("Notify", default: "yes", doc: "continued runs of the per-user agent show a desktop notification") { input in
            input.definition.notify = input.reader.bool("Notify", default: true)
        },
        JobKey("OnConditionLost", default: "expire", doc: "expire, or pause the run while a condition is lost") { input in
            input.definition.onConditionLost = input.reader.keyword(
                "OnConditionLost", default: ConditionLostAction.expire, noun: "an action")
        },
        JobKey("Resources", .list, default: "none", doc: "special resources the job needs: gpu") { input in
            var resources: [String] = []
            for (word, line) in input.reader.words("Resources") {
                if !JobDefinition.knownResources.contains(word) {
                    input.reader.error(line, "Resources: \(TextBytes.quoted(word)) is not a resource "
                        + "(\(JobDefinition.knownResources.joined(separator: ", ")))")
                } else if !resources.contains(word) {
                    resources.append(word)
                }
            }
            input.definition.resources = resources
        },
    ]

    static let chainRows: [JobKey] = [
        JobKey("Retry", default: "none", doc: "exponential INITIAL CAP, fixed DELAY or none") { input in
            guard let assignment = input.reader.scalar("Retry") else { return }
            switch RetryPolicy.parse(assignment.value) {
            case .success(let policy): input.definition.retry = policy
            case .failure(let error): input.reader.error(assignment.line, "Retry: \(error.message)")
            }
        },
        JobKey("OnSuccess", default: "none", doc: "identifier to launch after a success") { input in
            input.definition.onSuccess = JobDefinition.readChain("OnSuccess", &input)
        },
    ]

    static let environmentRows: [JobKey] = [
        JobKey("Environment", .list, default: "none", doc: "NAME=VALUE pairs for the plugin",
               read: JobDefinition.readEnvironment),
    ]

    static let limitRows: [JobKey] = RunLimits.rows + RunPriority.rows

    static let calendarRows: [JobKey] = JobDefinition.calendarRows
}
