// SPDX-License-Identifier: Apache-2.0
import Testing
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
