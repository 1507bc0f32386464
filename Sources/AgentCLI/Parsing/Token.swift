// SPDX-License-Identifier: Apache-2.0
/// One word of a command line, classified: the first stage of agentctl's parser
/// (tokenizer → command tree → validate → run).
enum Token: Equatable {
    /// `--name` or `--name=value`.
    case long(name: String, value: String?)
    /// `-x`: one letter.
    case short(Character)
    /// `-jx` or `-n1`: letters after one dash. As getopt reads them, each is an option until
    /// one that takes a value, which takes the rest of the word (`-n1`, `-vn1`).
    case cluster(String)
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
                let letters = argument.dropFirst()
                tokens.append(letters.count == 1 ? .short(letters.first ?? "-") : .cluster(String(letters)))
            } else {
                tokens.append(.word(argument))
            }
            index += 1
        }
        return tokens
    }
}
