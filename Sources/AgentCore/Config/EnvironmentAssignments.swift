// SPDX-License-Identifier: Apache-2.0
/// Variables in the order their names were first assigned, a later assignment of a name
/// replacing its value (as systemd and shells have it), in time linear in their number: a job
/// file or an environment file with 20,000 names must not hold the loop for seconds.
public struct EnvironmentAssignments: Sendable {
    public private(set) var variables: [EnvironmentVariable] = []
    private var position: [String: Int] = [:]

    public init() {}

    public mutating func assign(_ name: String, _ value: String) {
        if let existing = position[name] {
            variables[existing].value = value
        } else {
            position[name] = variables.count
            variables.append(EnvironmentVariable(name: name, value: value))
        }
    }
}
