// SPDX-License-Identifier: Apache-2.0
import AgentProtocol

extension StateWriter {
    /// DESIGN §10: the answer to a request that committed a change goes out only once that
    /// change is synced (off the loop: ``AcknowledgementSync``), or as the refusal the failed
    /// sync calls for; any other answer at once. `commitsBefore` is `requestCommits` from
    /// before the request was handled.
    func acknowledge(_ response: ControlResponse, commitsBefore: UInt64,
                     send: @escaping (ControlResponse) -> Void) {
        guard requestCommits > commitsBefore else {
            send(response)
            return
        }
        afterSync { synced in
            switch synced {
            case .success: send(response)
            case .failure(let refusal): send(.failure(.unavailable, refusal.description))
            }
        }
    }
}
