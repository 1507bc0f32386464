// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol
import AgentSystem

/// One request's peer, resolved once and only when a rule needs it: administrators cost no
/// lookup, others a few user and group database reads and one `/proc/PID/cgroup`.
final class PeerContext {
    let policy: AccessPolicy
    let connection: ClientConnection

    init(policy: AccessPolicy, connection: ClientConnection) {
        self.policy = policy
        self.connection = connection
    }

    private(set) lazy var requester: Requester = policy.requester(connection)
    /// Nil for a reader who sees everything.
    private(set) lazy var redaction: ReadRedaction? = policy.redaction(for: requester)

    func mayAct(for id: Identifier) -> Bool { policy.mayAct(for: id, requester) }
}

extension ControlHandler {
    /// The refusal of a verb that acts for one identifier (or run), or nil to go on: the
    /// identifier's manifest decides who besides root and group `agentd` may (`ChangeAuthority`).
    /// A target that names nothing is left to the verb, which says so and changes nothing.
    func identifierRefusal(_ request: ControlRequest, _ peer: PeerContext) -> ControlResponse? {
        if case .cancelRequest(.all) = request { return nil }  // filtered per identifier
        guard let target = request.target else { return nil }
        let id: Identifier
        if let run = RunID(parsing: target) {
            guard let live = runs.run(run) else { return nil }
            id = live.state.identifier
        } else if let parsed = Identifier(rawValue: target) {
            id = parsed
        } else {
            return nil
        }
        guard !peer.requester.isAdministrator else { return nil }
        if !isKnown(id), runs.runs(of: id).isEmpty, scheduling.scheduler.withdrawable(id).isEmpty { return nil }
        switch peer.policy.decide(request.command, id, peer.requester) {
        case .allowed: return nil
        case .refused(let why): return .failure(.accessDenied, why)
        }
    }
}
