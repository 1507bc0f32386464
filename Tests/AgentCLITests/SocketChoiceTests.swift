// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
import AgentProtocol
@testable import AgentCLI

@Test func agentctlAlonePrefersTheUserAgentOnlyForANonRootCallerWhoseSocketExists() {
    let session = ["XDG_RUNTIME_DIR": "/run/user/1000"]
    let exists: (String) -> Bool = { $0 == "/run/user/1000/agentd.sock" }
    #expect(SocketChoice.implicit(environment: session, isRoot: false, exists: exists) == ("/run/user/1000/agentd.sock", true))
    #expect(SocketChoice.implicit(environment: session, isRoot: true, exists: exists).path == "/run/agentd/agentd.sock")
    #expect(SocketChoice.implicit(environment: session, isRoot: false, exists: { _ in false }).path == "/run/agentd/agentd.sock")
    #expect(SocketChoice.implicit(environment: [:], isRoot: false, exists: { _ in true }).path == "/run/agentd/agentd.sock")
    var withSocket = session
    withSocket["AGENTD_SOCKET"] = "/tmp/other.sock"
    #expect(SocketChoice.implicit(environment: withSocket, isRoot: false, exists: exists).path == "/tmp/other.sock")
}

/// An agent that never answers: the advice names the journal of the agent talked to.
@Test func theAdviceForAnAgentThatDoesNotAnswerNamesTheUserUnitsJournalForTheUserAgent() throws {
    let path = "/tmp/agentctl-silent-\(getpid()).sock"
    unlink(path)
    let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    #expect(listener >= 0)
    defer { close(listener); unlink(path) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        path.utf8CString.withUnsafeBytes { raw.copyMemory(from: $0) }
    }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    #expect(bound == 0)
    // Connections wait in the backlog, never accepted: the request goes out, no answer comes.
    #expect(listen(listener, 4) == 0)
    for (isUser, journal) in [(true, "journalctl --user -u agentd"), (false, "journalctl -u agentd")] {
        var context = CommandContext(socketPath: path, terminalWidth: nil, clock: .system)
        context.isUserAgent = isUser
        do {
            _ = try context.exchange(ControlRequest.status, timeout: .milliseconds(200))
            Issue.record("an agent that never answers answered")
        } catch {
            #expect(error.message.contains("see \(journal))"), "\(error.message)")
            #expect(isUser || !error.message.contains("--user"))
            #expect(!error.message.contains("may still take effect"), "a read changes nothing: \(error.message)")
        }
        // A change sent to an agent that is stopped is read when it runs again: the failure
        // must not let the user think it did nothing (a retried submit would run twice).
        do {
            _ = try context.exchange(ControlRequest.submit(target: "local.export", SubmitRequest()), timeout: .milliseconds(200))
            Issue.record("an agent that never answers answered")
        } catch {
            let ctl = isUser ? "agentctl --user" : "agentctl"
            #expect(error.message.hasSuffix("; the request was sent and may still take effect when agentd gets to it: once "
                + "\(ctl) status answers, look before repeating it (\(ctl) pending shows what waits, \(ctl) history what ran)"),
                "\(error.message)")
        }
    }
}
