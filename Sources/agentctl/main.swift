// SPDX-License-Identifier: Apache-2.0
import AgentCLI
import Glibc

// agentctl: the window onto agentd and the lever on it. All logic lives in AgentCLI.
var environment: [String: String] = [:]
var pointer = environ
while let entry = pointer.pointee {
    let text = String(cString: entry)
    if let equals = text.firstIndex(of: "=") {
        environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
    }
    pointer = pointer.advanced(by: 1)
}
exit(AgentControl.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: environment))
