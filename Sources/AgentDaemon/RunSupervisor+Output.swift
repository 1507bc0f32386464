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

    /// One read's lines: the run, the clock and the observers looked up once for all of them
    /// (a plugin may print millions of `PROGRESS=` lines: each lookup of a class's field is an
    /// exclusivity check at run time).
    func output(_ id: RunID, _ stream: PluginProcess.Stream, _ read: PluginProcess.LineReader) {
        guard let run = live[id] else {
            read { _, _ in }  // drained all the same
            return
        }
        // Nobody following: no call per line to find that out.
        let directive = (directivesFollowed?() ?? true) ? onRunDirective : nil
        let observers = LineObservers(now: loop.now.sinceOrigin, directive: directive,
                                      progress: onRunProgress, output: onRunOutput)
        read { bytes, wasCut in line(run, stream, bytes, wasCut: wasCut, observers) }
    }

    private struct LineObservers {
        let now: Duration
        let directive: ((RunID, PluginDirective) -> Void)?
        let progress: ((RunID, Double) -> Void)?
        let output: ((RunID, String) -> Void)?
    }

    private func line(_ run: ActiveRun, _ stream: PluginProcess.Stream, _ bytes: UnsafeBufferPointer<UInt8>,
                      wasCut: Bool, _ observers: LineObservers) {
        switch stream {
        case .stdout:
            let directive = PluginDirective.parse(bytes, wasCut: wasCut)
            // Only a TITLE= line can change the title: no copy of it at every PROGRESS= line.
            if case .title = directive {
                let title = run.state.title
                defer { if run.state.title != title { recorder.titleChanged(run) } }
                onDirective(run, directive, observers)
            } else {
                onDirective(run, directive, observers)
            }
        case .stderr:
            let text = String(decoding: bytes, as: UTF8.self)
            run.state.appendLog(text)
            logPluginLine(run, text)
            observers.output?(run.state.id, text)
        }
    }

    /// A stdout line: a directive applied to the run, or a log line.
    private func onDirective(_ run: ActiveRun, _ directive: PluginDirective, _ observers: LineObservers) {
        let applied = Self.apply(directive, to: &run.state, now: observers.now)
        switch applied.effect {
        case .progressed:
            if let fraction = applied.newPercent { observers.progress?(applied.id, fraction) }
            observers.directive?(applied.id, directive)
        case .checkpointed:
            recorder.checkpointChanged(run)
        case .logLine(let text):
            logPluginLine(run, text)
            observers.output?(applied.id, text)
        case .none:
            observers.directive?(applied.id, directive)
        case .invalid:
            break
        }
    }

    /// The directive applied within one access to the run's state: the hot path.
    private static func apply(_ directive: PluginDirective, to state: inout LiveRun,
                              now: Duration) -> (effect: LiveRun.Effect, id: RunID, newPercent: Double?) {
        let effect = state.apply(directive)
        guard case .progressed = effect else { return (effect, state.id, nil) }
        // A PROGRESS= line yields no action and moves no deadline (RunLifecycleTests), so no
        // timer to look at.
        _ = state.handle(.progress, now: now)
        return (effect, state.id, state.wholePercentChange())
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
}
