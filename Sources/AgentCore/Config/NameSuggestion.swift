// SPDX-License-Identifier: Apache-2.0
/// "Did you mean …?" for a misspelt config key, command or option: the known name equal to it
/// ignoring ASCII case, else the names it begins, up to three (`hist` → `history`), else the closest within
/// two edits — one for a name of three bytes (`lst` → `list`, `jsn` → `json`), none for shorter
/// or 64 bytes and more, so short typos do not suggest something unrelated. A swap of two
/// neighbours is one edit (`statsu` → `status`).
public enum NameSuggestion {
    /// The best suggestion, if any.
    public static func closest(to name: String, among known: [String]) -> String? {
        candidates(for: name, among: known).first
    }

    /// Every known name at the smallest distance (ties: `stats or status`), in `known` order.
    public static func candidates(for name: String, among known: [String]) -> [String] {
        let lowered = TextBytes.asciiLowercased(name)
        if let match = known.first(where: { TextBytes.asciiLowercased($0) == lowered }) {
            return [match]
        }
        guard name.utf8.count >= 3, name.utf8.count < 64 else { return [] }
        let begun = known.filter { TextBytes.asciiLowercased($0).hasPrefix(lowered) }
        if (1...3).contains(begun.count) { return begun }
        let limit = name.utf8.count == 3 ? 1 : 2
        var best: [String] = []
        var bestDistance = Int.max
        for candidate in known {
            let distance = editDistance(Array(lowered.utf8), Array(TextBytes.asciiLowercased(candidate).utf8))
            guard distance <= limit else { continue }
            if distance < bestDistance {
                best = [candidate]
                bestDistance = distance
            } else if distance == bestDistance {
                best.append(candidate)
            }
        }
        return best
    }

    /// Optimal-string-alignment distance: insertions, deletions, substitutions and adjacent
    /// transpositions each cost one.
    static func editDistance(_ x: [UInt8], _ y: [UInt8]) -> Int {
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { table[i][0] = i }
        for j in 0...y.count { table[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                var value = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
                    value = min(value, table[i - 2][j - 2] + 1)
                }
                table[i][j] = value
            }
        }
        return table[x.count][y.count]
    }
}
