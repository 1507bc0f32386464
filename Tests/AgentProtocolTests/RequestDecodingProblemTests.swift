// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentProtocol

private func problem(_ line: String) -> String? {
    do {
        _ = try MessageCoding.decode(ControlRequest.self, from: Array(line.utf8))
        return "decoded"
    } catch {
        return RequestDecodingProblem.describe(error)
    }
}

@Test func aFieldThatIsNotWhatItsVerbTakesIsNamed() {
    #expect(problem(#"{"command":"request","target":"local.quick","request":{"requiresNetwork":"metered"}}"#)
        == #""request.requiresNetwork" does not take "metered""#)
    #expect(problem(#"{"command":"history","limit":"x"}"#) == #""limit" must be a number, not a string"#)
    #expect(problem(#"{"command":"subscribe","filter":{"kinds":"run-ended"}}"#)
        == #""filter.kinds" must be a list, not a string"#)
    #expect(problem(#"{"command":"history","limit":null}"#) == "decoded", "null is a value left out")
}

@Test func aLineThatIsNoRequestNamesNoField() {
    #expect(problem("[1,2]") == nil)
    #expect(problem("not json") == nil)
}
