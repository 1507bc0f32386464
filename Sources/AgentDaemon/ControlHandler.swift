import AgentCore
import AgentProtocol
import AgentSystem
import Glibc

/// Turns control-socket requests into answers. Reads go to anyone who can connect; changes are
/// checked against the peer's credentials (SO_PEERCRED) before anything happens.
struct ControlHandler {
    unowned let agent: Agent

    func handle(_ request: ControlServer.Request) {
        let response: ControlResponse
        do {
            let decoded = try MessageCoding.decode(ControlRequest.self, from: request.bytes)
            response = answer(decoded, peer: request.peer)
        } catch {
            response = .failure(.badRequest, "malformed request: expected one JSON object per line with a \"command\" field (\(ControlCommand.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        let line = (try? MessageCoding.encodeLine(response))
            ?? Array(#"{"ok":false,"error":{"code":"internal","message":"cannot encode response"}}"#.utf8)
        request.respond(line)
    }

    private func answer(_ request: ControlRequest, peer: PeerCredentials) -> ControlResponse {
        if let refusal = AccessPolicy.refusal(for: request.command, peer: peer) {
            return .failure(.accessDenied, refusal)
        }
        switch request.command {
        case .status: return ControlResponse(status: statusReport())
        case .list: return ControlResponse(jobs: jobSummaries())
        }
    }

    func statusReport() -> StatusReport {
        let registry = agent.config.registry
        return StatusReport(
            version: AgentVersion.string, pid: getpid(), startedAt: agent.startedAtWall,
            uptimeSeconds: agent.startedAt.duration(to: agent.loop.now).components.seconds,
            configDirectory: agent.options.configDirectory,
            stateDirectory: agent.options.stateDirectory, socketPath: agent.options.socketPath,
            manifestCount: registry.manifestCount, jobCount: registry.jobCount,
            diagnostics: registry.diagnostics, stateError: agent.state.problem,
            running: [], pending: [])
    }

    func jobSummaries() -> [JobSummary] {
        agent.config.registry.allJobs.map { job in
            let state: String
            switch job.state {
            case .registered: state = "registered"
            case .notPermitted(let reason): state = reason
            case .duplicate(let other): state = "duplicate of \(other)"
            }
            return JobSummary(
                identifier: job.definition.identifier.rawValue, kind: job.definition.kind.rawValue,
                source: job.sourcePath, state: state, exec: job.definition.exec,
                intervalSeconds: job.definition.interval.map { $0.components.seconds })
        }
    }
}

/// DESIGN §9: reads for anyone allowed to connect; changes for root and group `agentd`;
/// `simulate` and `lowpower` for root.
enum AccessPolicy {
    static func refusal(for command: ControlCommand, peer: PeerCredentials) -> String? {
        switch command.access {
        case .read:
            return nil
        case .change:
            if peer.uid == 0 || peer.uid == geteuid() || isInAgentdGroup(peer) { return nil }
            return "\(command.rawValue) changes the agent: run it as root or as a member of group agentd"
        case .root:
            if peer.uid == 0 || peer.uid == geteuid() { return nil }
            return "\(command.rawValue) is for root: run it with sudo"
        }
    }

    private static func isInAgentdGroup(_ peer: PeerCredentials) -> Bool {
        guard let group = getgrnam("agentd") else { return false }
        if peer.gid == group.pointee.gr_gid { return true }
        guard let entry = getpwuid(peer.uid), let name = entry.pointee.pw_name else { return false }
        var member = group.pointee.gr_mem
        while let pointer = member?.pointee {
            if strcmp(pointer, name) == 0 { return true }
            member = member?.advanced(by: 1)
        }
        return false
    }
}
