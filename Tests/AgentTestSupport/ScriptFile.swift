// SPDX-License-Identifier: Apache-2.0
/// A golden script in etcd raft's datadriven style: each case is a command line, optional
/// input lines, a `----` line and the expected output, up to the next blank line. Comment
/// (`#`) and blank lines between cases are kept as they are, so the file can be rewritten
/// with new output (`UPDATE_GOLDEN=1`) without losing them.
public struct ScriptFile {
    /// One command with its input and the output the file expects.
    public struct Case {
        /// 1-based line of the command in the file.
        public var line: Int
        public var command: String
        public var input: [String]
        public var expected: [String]
    }

    public enum Item {
        case verbatim(String)
        case command(Case)
    }

    public var items: [Item] = []

    public var cases: [Case] {
        items.compactMap { if case .command(let c) = $0 { c } else { nil } }
    }

    public static let separator = "----"

    public init(parsing text: String) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        var index = 0
        while index < lines.count {
            let line = lines[index]
            if line.isEmpty || line.hasPrefix("#") {
                items.append(.verbatim(line))
                index += 1
                continue
            }
            var script = Case(line: index + 1, command: line, input: [], expected: [])
            index += 1
            // Input until `----`, or until a blank line for a case not yet run.
            var separated = false
            while index < lines.count, !lines[index].isEmpty {
                index += 1
                if lines[index - 1] == Self.separator {
                    separated = true
                    break
                }
                script.input.append(lines[index - 1])
            }
            if separated {
                while index < lines.count, !lines[index].isEmpty {
                    script.expected.append(lines[index])
                    index += 1
                }
            }
            items.append(.command(script))
        }
    }

    /// The file with every case's output replaced by `outputs[line]` (keyed by command line).
    public func rendered(with outputs: [Int: [String]]) -> String {
        var text: [String] = []
        for item in items {
            switch item {
            case .verbatim(let line): text.append(line)
            case .command(let script):
                text.append(script.command)
                text.append(contentsOf: script.input)
                text.append(Self.separator)
                text.append(contentsOf: outputs[script.line] ?? script.expected)
            }
        }
        return text.joined(separator: "\n") + "\n"
    }

    /// A unified-style difference of two outputs, lines prefixed `-` (expected) and `+` (actual).
    public static func difference(expected: [String], actual: [String]) -> String {
        // Longest common subsequence: outputs are short, O(n·m) is fine.
        let n = expected.count, m = actual.count
        var lcs = Array(repeating: Array(repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                lcs[i][j] = expected[i] == actual[j] ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
            }
        }
        var out: [String] = []
        var i = 0, j = 0
        while i < n || j < m {
            if i < n, j < m, expected[i] == actual[j] {
                out.append("  " + expected[i])
                i += 1
                j += 1
            } else if i < n, j == m || lcs[i + 1][j] >= lcs[i][j + 1] {
                out.append("- " + expected[i])
                i += 1
            } else {
                out.append("+ " + actual[j])
                j += 1
            }
        }
        return out.joined(separator: "\n")
    }
}

/// A script command that cannot be carried out, with the reason.
public struct ScriptError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension ScriptFile {
    /// A command line's words: split on spaces, double quotes group (`title="a b"` is one word,
    /// quotes removed).
    public static func words(_ line: String) throws -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false, inWord = false
        for character in line {
            if character == "\"" {
                quoted.toggle()
                inWord = true
            } else if character == " ", !quoted {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if quoted { throw ScriptError("unterminated quote in \(line)") }
        if inWord { words.append(current) }
        return words
    }
}
