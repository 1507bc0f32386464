// SPDX-License-Identifier: Apache-2.0
/// `OnSuccess=` chains that come back to where they started (A → B → A): each success would
/// launch the next at once, for ever, and burn the day's budget in seconds. A job file that
/// would close such a cycle is refused at load.
enum ChainCycle {
    /// The identifiers of the cycle `definition` would close, starting and ending with its own
    /// (`[a, b, a]`), or nil. `definitionOf` gives the definition in force for an identifier.
    static func find(from definition: JobDefinition,
                     in definitionOf: (Identifier) -> JobDefinition?) -> [Identifier]? {
        let start = definition.identifier
        var path = [start]
        var seen: Set<Identifier> = [start]
        var next = definition.onSuccess
        while let current = next {
            path.append(current)
            if current == start { return path }
            // A loop that does not pass through `start` was refused when it formed; stop anyway.
            guard seen.insert(current).inserted else { return nil }
            next = definitionOf(current)?.onSuccess
        }
        return nil
    }

    static func message(_ cycle: [Identifier]) -> String {
        let names = cycle.map(\.rawValue).joined(separator: " → ")
        return "OnSuccess= forms a cycle: \(names); each success would launch the next at once, "
            + "for ever: remove OnSuccess= from one of them"
    }
}
