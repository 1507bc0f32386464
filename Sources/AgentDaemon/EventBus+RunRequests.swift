// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentProtocol

/// Run-time requests on the event stream (DESIGN §9: "requests" among the events): a refresh or
/// processing identifier's request made pending, replaced, or withdrawn by `cancel-request`.
/// A request's launch is its `run-started` (reason `requested`).
extension EventBus {
    func requestPending(_ identifier: Identifier, kind: JobKind, replaced: Bool, _ request: RunRequestOptions) {
        publish(replaced ? .requestReplaced : .requestAdded, identifier: identifier.rawValue) { event in
            event.kind = kind
            event.request = request
        }
    }

    /// `what`: the sentence `cancel-request` answered for this identifier ("withdrew 1 request").
    func requestWithdrawn(_ identifier: Identifier, _ what: String) {
        publish(.requestWithdrawn, identifier: identifier.rawValue) { $0.message = what }
    }
}
