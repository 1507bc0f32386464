// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

struct ExecLineTests {
    @Test(arguments: [
        ("/bin/echo hello world", ["/bin/echo", "hello", "world"]),
        ("  /bin/echo   spaced\tout  ", ["/bin/echo", "spaced", "out"]),
        ("/bin/echo \"hello world\"", ["/bin/echo", "hello world"]),
        ("/bin/echo 'a \"b\" c'", ["/bin/echo", "a \"b\" c"]),
        ("/bin/x a\"b c\"d", ["/bin/x", "ab cd"]),
        ("/bin/x \"\" ''", ["/bin/x", "", ""]),
        ("/bin/x \\x41\\t\\n", ["/bin/x", "A\t\n"]),
        ("/bin/x a\\ b", ["/bin/x", "a b"]),
        ("/bin/x a\\sb", ["/bin/x", "a b"]),
        ("/bin/x $HOME ${X} %n", ["/bin/x", "$HOME", "${X}", "%n"]),
        ("/bin/x \\u00e9 \\U0001F600", ["/bin/x", "é", "😀"]),
        ("/bin/x \\303\\251", ["/bin/x", "é"]),
        ("/bin/x a\\; \\;", ["/bin/x", "a;", ";"]),
        ("/bin/x 'it''s'", ["/bin/x", "its"]),
        ("/bin/x \"a\\\"b\" 'c\\'d'", ["/bin/x", "a\"b", "c'd"]),
        ("/bin/x \\\\server", ["/bin/x", "\\server"]),
        ("/bin/x a|b c&&d >out", ["/bin/x", "a|b", "c&&d", ">out"]),
        ("", []),
    ])
    func splitsWithSystemdQuotingAndNoShell(_ text: String, _ expected: [String]) throws {
        #expect(try ExecLine.split(text).get() == expected)
    }

    @Test(arguments: [
        ("/bin/x \"abc", ExecLineError.unbalancedQuote("\"")),
        ("/bin/x 'abc", .unbalancedQuote("'")),
        ("/bin/x abc\\", .trailingBackslash),
        ("/bin/x \\q", .invalidEscape("\\q")),
        ("/bin/x \\x0", .invalidEscape("\\x0")),
        ("/bin/x \\x00", .invalidEscape("\\x00")),
        ("/bin/x \\000", .invalidEscape("\\000")),
        ("/bin/x \\u12", .invalidEscape("\\u12")),
        ("/bin/x \\uD800", .invalidEscape("\\uD800")),
        ("-/bin/x", .unsupportedPrefix("-")),
        ("@/bin/x argv0", .unsupportedPrefix("@")),
        ("+/bin/x", .unsupportedPrefix("+")),
        ("!/bin/x", .unsupportedPrefix("!")),
        (" :/bin/x", .unsupportedPrefix(":")),
        ("/bin/x ; /bin/y", .multipleCommands),
        ("/bin/x \\xff", .invalidUTF8),
        // Found by fuzz-exec-line (Fuzz/regressions/exec-line/raw-nul-byte): `\x00` was refused
        // but a raw NUL byte went into the argument, where execve would cut it short.
        ("/bin/x a\u{0}b", .containsNUL),
        ("/bin/x \"\u{0}\"", .containsNUL),
    ])
    func refusesWhatSystemdWouldRejectOrWeDoNotSupport(_ text: String, _ expected: ExecLineError) {
        guard case .failure(let error) = ExecLine.split(text) else {
            Issue.record("\(text) was accepted")
            return
        }
        #expect(error == expected)
        #expect(!error.description.isEmpty)
    }

    @Test func tokenizeKeepsLeadingDashesAndLoneSemicolons() throws {
        #expect(try ExecLine.tokenize("-a ; b").get() == ["-a", ";", "b"])
    }

    @Test func errorMessagesSayWhatWouldBeValid() {
        #expect(ExecLineError.unbalancedQuote("\"").description
            == "unbalanced \" quote: close it, or write \\\" for a literal \"")
        #expect(ExecLineError.unsupportedPrefix("-").description.contains("start with the plugin's absolute path"))
        #expect(ExecLineError.multipleCommands.description.contains("write \\; for a literal semicolon"))
    }
}
