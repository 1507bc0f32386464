// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol

/// `request` and `cancel-request` (DESIGN §4, §8): a refresh or processing identifier's
/// pending request with its own earliest begin and requirements, and its withdrawal.
extension ControlHandler {
    func requestRun(_ target: String, _ options: RunRequestOptions) -> ControlResponse {
        let job: JobDefinition
        // A dynamic identifier (`com.example.feed.news` under a manifest's `com.example.feed.*`)
        // is its job's request, as a continued submission is its job's: one pending per job.
        if let asked = Identifier(rawValue: target), catalogue.registry.job(asked) == nil,
           let dynamic = catalogue.registry.job(accepting: asked) {
            job = dynamic
        } else if let asked = Identifier(rawValue: target), catalogue.registry.job(asked) == nil,
                  catalogue.registry.jobFileWithErrors(asked) == nil, !catalogue.registry.permitsAnywhere(asked) {
            // DESIGN §3: a request whose identifier no manifest permits is not-permitted.
            return .failure(.notPermitted, "no manifest permits \(asked): a request needs a job of that identifier, "
                + "and a manifest in manifests.d/ whose PermittedIdentifiers= covers it (\(noJob(asked)))")
        } else {
            switch registeredJob(target) {
            case .failure(let error): return .failure(error)
            case .success(let found): job = found
            }
        }
        let id = job.identifier
        let asDynamic = target == id.rawValue ? "" : " (\(target) is a dynamic identifier of job \(id): one request is pending per job, and its run is the job's)"
        guard job.kind != .continued else {
            let of = target == id.rawValue ? "" : " (a dynamic identifier of \(id))"
            if let asked = options.kind {
                // The library's BGAppRefreshTaskRequest/BGProcessingTaskRequest: as iOS, not permitted.
                return .failure(.notPermitted, "\(target) is a continued job\(of): a \(Self.requestType(asked.jobKind)) cannot ask "
                    + "for it; submit a \(Self.requestType(.continued)) (agentctl submit \(target))")
            }
            // The verb is wrong, not the permission: as run, trigger and run-if-stale say (exit 1).
            return .failure(.badRequest, "\(target) is a continued job\(of): it is submitted (agentctl submit \(target)), not requested")
        }
        if let asked = options.kind, asked.jobKind != job.kind {
            // iOS refuses a request its app has no background mode for; here the job's Kind= is the mode.
            return .failure(.notPermitted, "\(id) is a \(job.kind.rawValue) job (Kind=\(job.kind.rawValue)): a "
                + "\(Self.requestType(asked.jobKind)) cannot ask for it; submit a \(Self.requestType(job.kind)), "
                + "or give the job Kind=\(asked.rawValue)")
        }
        // The legacy numeric form takes any number; a time past what RFC 3339 can write (year
        // 9999) could be neither shown nor answered, and is refused like one that is no time.
        if let earliest = options.earliestBegin, !RFC3339.writableSeconds.contains(earliest) {
            return .failure(.badRequest, "request: earliestBegin is not a time between the years 1 and 9999 "
                + "(an RFC 3339 instant such as 2026-12-01T09:00:00.000Z, or agentctl request --earliest +2h)")
        }
        let asked = RunRequest(
            earliestBegin: SchedulerTime(seconds: options.earliestBegin ?? scheduling.now.seconds),
            requirements: RequestRequirements(network: Self.network(options.requiresNetwork),
                                              externalPower: options.requiresExternalPower ?? false))
        let before = Set(runs.runs(of: id).map(\.state.id))
        switch scheduling.requestRun(id, asked) {
        case .unwritable(let why):
            return .failure(.unavailable, why.description)
        case .decided(.refused(.cannotStartNow(let reason))):
            return .failure(.unavailable, "\(id) cannot be requested (\(reason)): \(Self.nextStep(for: reason, id, id))")
        case .decided(.refused):
            return .failure(.notPermitted, "not-permitted: \(id) is not a registered refresh or processing job")
        case .decided(let outcome):
            let replaced = outcome == .requested(replaced: true) ? " (replacing the pending request)" : ""
            if let run = runs.runs(of: id).first(where: { !before.contains($0.state.id) }) {
                return .success(.done(message: "requested \(id)\(replaced): started run \(run.state.id)\(asDynamic)",
                                              runID: run.state.id.description))
            }
            // Pending, not started at once (one that starts says so with its run-started).
            var pending = Self.options(asked)
            pending.earliestBegin = max(options.earliestBegin ?? scheduling.now.seconds, scheduling.now.seconds)
            events.requestPending(id, kind: job.kind, replaced: !replaced.isEmpty, pending)
            let waiting = pendingSummaries(filter: id.rawValue).first.map { "; waiting: \($0.waitingFor)" } ?? ""
            return .success(.done(message: "requested \(id)\(replaced)\(waiting)\(asDynamic)"))
        }
    }

    /// Withdraws pending requests and queued submissions, never a live run, and says what it
    /// withdrew. `all`: every identifier with something pending that the caller may change
    /// (`mayWithdraw`: root and group agentd every one; others their manifests').
    func cancelRequest(_ scope: WithdrawalScope, mayWithdraw: (Identifier) -> Bool) -> ControlResponse {
        let ids: [Identifier]
        var exactly = false
        switch scope {
        case .all:
            ids = scheduling.scheduler.identifiersWithPendingRequests.filter(mayWithdraw)
        case .identifier(let target, let exact):
            exactly = exact
            guard let id = Identifier(rawValue: target) else {
                return .failure(.badRequest, Self.notAnIdentifier(target))
            }
            guard catalogue.registry.job(id) != nil || !scheduling.scheduler.withdrawable(id).isEmpty
                || id.parents.contains(where: { catalogue.registry.job($0) != nil })
            else {
                return .failure(registeredJob(target).failureValue ?? ControlError(code: .notFound, message: noJob(id)))
            }
            // A requested dynamic identifier's request is its job's (see requestRun).
            let requested = catalogue.registry.job(id) == nil ? catalogue.registry.job(accepting: id, kind: { $0 != .continued })?.identifier : nil
            ids = [requested ?? id]
        }
        var withdrawn = WithdrawnWork()
        for id in ids {
            let work = scheduling.scheduler.withdrawable(id, exactly: exactly)
            guard !work.isEmpty else { continue }
            do { try scheduling.request(.cancelPending(id, exactly: exactly)) } catch { return .failure(.unavailable, error.description) }
            events.requestWithdrawn(id, work.description)
            withdrawn = withdrawn + work
        }
        let named: String
        switch scope {
        case .all: named = ""
        case .identifier(let target, _): named = " for \(target)"
        }
        return .success(.done(message: withdrawn.description + named))
    }

    /// The library's request type for a kind.
    static func requestType(_ kind: JobKind) -> String {
        switch kind {
        case .refresh: "BGAppRefreshTaskRequest"
        case .processing: "BGProcessingTaskRequest"
        case .continued: "BGContinuedProcessingTaskRequest"
        }
    }

    static func network(_ need: RunRequestOptions.NetworkNeed?) -> NetworkRequirement {
        switch need {
        case nil: .no
        case .any: .yes
        case .unmetered: .unmetered
        }
    }

    static func options(_ request: RunRequest) -> RunRequestOptions {
        let network: RunRequestOptions.NetworkNeed? = switch request.requirements.network {
        case .no: nil
        case .yes: .any
        case .unmetered: .unmetered
        }
        return RunRequestOptions(earliestBegin: request.earliestBegin.seconds, requiresNetwork: network,
                                 requiresExternalPower: request.requirements.externalPower ? true : nil)
    }
}

extension Result {
    /// The error, when it failed.
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
