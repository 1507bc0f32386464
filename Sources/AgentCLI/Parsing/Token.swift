// SPDX-License-Identifier: Apache-2.0
/// One word of a command line, classified: the first stage of agentctl's parser
/// (tokenizer → command tree → validate → run).
enum Token: Equatable {
    /// `--name` or `--name=value`.
    case long(name: String, value: String?)
    /// `-x` (one letter; clusters like `-jx` are split into several).
    case short(Character)
    /// A plain word (also `-2h`: a word that starts with a dash and a digit).
    case word(String)
    /// Everything after `--`, passed through untouched.
    case passthrough([String])

    static func tokenize(_ arguments: [String]) -> [Token] {
        var tokens: [Token] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                tokens.append(.passthrough(Array(arguments[(index + 1)...])))
                break
            } else if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                if let equals = body.firstIndex(of: "=") {
                    tokens.append(.long(name: String(body[..<equals]), value: String(body[body.index(after: equals)...])))
                } else {
                    tokens.append(.long(name: String(body), value: nil))
                }
            } else if argument.hasPrefix("-"), argument.count > 1,
                      !(argument.dropFirst().first?.isNumber ?? false) {
                // `-2h` is a relative time (`--since -2h`, as journalctl reads it), never
                // options: no option is a digit.
                tokens.append(contentsOf: argument.dropFirst().map { Token.short($0) })
            } else {
                tokens.append(.word(argument))
            }
            index += 1
        }
        return tokens
    }
}
