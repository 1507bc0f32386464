// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

struct IdentifierTests {
    @Test(arguments: ["com.example.photos.cleanup", "a", "local.backup-2_x", "A.B.C", "0",
                      String(repeating: "a", count: 255)])
    func acceptsLettersDigitsDotsUnderscoresAndDashesUpTo255Bytes(_ raw: String) {
        #expect(Identifier(rawValue: raw)?.rawValue == raw)
        #expect(Identifier.problem(with: raw) == nil)
    }

    @Test(arguments: [
        ("", "it is empty"),
        (String(repeating: "a", count: 256), "it is 256 bytes long, at most 255 are allowed"),
        ("com.example/x", "\"/\" is not allowed"),
        ("com example", "\" \" is not allowed"),
        ("com.exämple", "\"ä\" is not allowed"),
        ("com.example.*", "\"*\" is not allowed"),
        ("tab\there", "\"\\t\" is not allowed"),
    ])
    func rejectsOtherCharactersAndLengths(_ raw: String, _ problem: String) {
        #expect(Identifier(rawValue: raw) == nil)
        #expect(Identifier.problem(with: raw)?.contains(problem) == true)
    }

    @Test func ordersByBytes() {
        #expect(id("a.b") < id("a.c"))
        #expect(id("B") < id("a"))
        #expect(id("a") < id("a.b"))
    }
}

struct IdentifierPatternTests {
    @Test func exactPatternMatchesOnlyItself() throws {
        let pattern = try #require(IdentifierPattern(rawValue: "com.example.sync"))
        #expect(pattern == .exact(id("com.example.sync")))
        #expect(pattern.matches(id("com.example.sync")))
        #expect(!pattern.matches(id("com.example.sync.x")))
    }

    @Test func wildcardMatchesIdentifiersWithANonEmptySuffix() throws {
        let pattern = try #require(IdentifierPattern(rawValue: "com.example.*"))
        #expect(pattern == .prefix("com.example."))
        #expect(pattern.description == "com.example.*")
        #expect(pattern.matches(id("com.example.a")))
        #expect(pattern.matches(id("com.example.a.b")))
        #expect(!pattern.matches(id("com.example")))
        #expect(!pattern.matches(id("com.examplex.a")))
        #expect(!pattern.matches(id("org.example.a")))
    }

    @Test func anIdentifierCannotEndInTheWildcardsDot() {
        // The wildcard needs something after the dot, and an identifier cannot end in one.
        #expect(Identifier(rawValue: "com.example.") == nil)
    }

    @Test(arguments: [
        ("com.*.x", "* is allowed only once, as the final .*"),
        ("*", "a bare * would permit every identifier"),
        ("a.*.*", "* is allowed only once, as the final .*"),
        ("a*", "* must follow a dot, as the final .* (e.g. a.*)"),
        ("com.example*", "* must follow a dot"),
        (".*", "there is nothing before .*"),
        ("**", "* is allowed only once"),
        ("", "it is empty"),
        ("com example.*", "\" \" is not allowed"),
        (String(repeating: "a", count: 254) + ".*", "no identifier of at most 255 bytes could match it"),
    ])
    func wildcardOnlyAllowedAsFinalComponent(_ raw: String, _ problem: String) {
        #expect(IdentifierPattern(rawValue: raw) == nil)
        let message = IdentifierPattern.problem(with: raw)
        #expect(message?.contains(problem) == true, "\(raw): \(message ?? "nil")")
    }
}
