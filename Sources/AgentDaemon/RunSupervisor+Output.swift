// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem

/// A run's output (DESIGN §5): stdout lines are directives, anything else a log line, kept in
/// the run's tail and written to the agent's log rate-limited.
extension RunSupervisor {
    /// Journal fields of a plugin's output lines: which run wrote them.
    static func outputFields(_ run: ActiveRun) -> LogFields {
        LogFields(.pluginOutput, identifier: run.state.identifier.rawValue, runID: run.state.id.description)
    }

    func line(_ id: RunID, _ stream: PluginProcess.Stream, _ bytes: UnsafeBufferPointer<UInt8>, wasCut: Bool) {
        guard let run = live[id] else { return }
        switch stream {
        case .stdout:
            let title = run.state.title
            defer { if run.state.title != title { recorder.titleChanged(run) } }
            let directive = PluginDirective.parse(bytes, wasCut: wasCut)
            switch run.state.apply(directive) {
            case .progressed:
                // The hot path (a plugin may print thousands a second): a PROGRESS= line yields no
                // action and moves no deadline (RunLifecycleTests), so no timer to look at.
                _ = run.state.handle(.progress, now: loop.now.sinceOrigin)
                reportProgress(run)
                onRunDirective?(run.state.id, directive)
            case .checkpointed:
                recorder.checkpointChanged(run)
            case .logLine(let text):
                logPluginLine(run, text)
                onRunOutput?(run.state.id, text)
            case .none:
                onRunDirective?(run.state.id, directive)
            case .invalid:
                break
            }
        case .stderr:
            let text = String(decoding: bytes, as: UTF8.self)
            run.state.appendLog(text)
            logPluginLine(run, text)
            onRunOutput?(run.state.id, text)
        }
    }

    private func logPluginLine(_ run: ActiveRun, _ text: String) {
        switch logLimiter.admit(run.state.id, now: loop.now) {
        case .emit(let suppressed):
            if suppressed > 0 {
                log.notice("[\(run.state.identifier) \(run.state.id)] \(LogRateLimiter<RunID>.suppressedMessage(suppressed))",
                                 fields: Self.outputFields(run))
            }
            log.info("[\(run.state.identifier) \(run.state.id)] \(text)", fields: Self.outputFields(run))
        case .suppress:
            break
        }
    }

    private func reportProgress(_ run: ActiveRun) {
        guard let fraction = run.state.progress?.fraction else { return }
        // 0.29 * 100 is 28.999…: a tolerance keeps a whole percent whole.
        let percent = Int(fraction * 100 + 1e-9)
        guard percent != run.reportedPercent else { return }
        run.reportedPercent = percent
        onRunProgress?(run.state.id, fraction)
    }

}
