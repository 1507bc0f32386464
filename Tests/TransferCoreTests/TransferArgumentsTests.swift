// SPDX-License-Identifier: Apache-2.0
import Testing
import TransferCore

struct TransferArgumentsTests {
    @Test func aURLAndADestinationAreAllItNeeds() throws {
        let parsed = try TransferArguments.parse(["https://example.com/f.iso", "/srv/f.iso"]).get()
        #expect(parsed == TransferArguments(url: "https://example.com/f.iso", destination: "/srv/f.iso"))
    }

    @Test func theSHA256IsTakenInEitherSpellingAndLowercased() throws {
        let hex = String(repeating: "Ab", count: 32)
        let spaced = try TransferArguments.parse(["--sha256", hex, "http://h/f", "f"]).get()
        let joined = try TransferArguments.parse(["http://h/f", "--sha256=" + hex, "f"]).get()
        #expect(spaced.sha256 == hex.lowercased())
        #expect(joined == spaced)
    }

    @Test func aShortOrNonHexSHA256IsAUsageError() {
        for value in ["abc", String(repeating: "g", count: 64), String(repeating: "a", count: 65)] {
            guard case .failure(let error) = TransferArguments.parse(["--sha256", value, "http://h/f", "f"]) else {
                Issue.record("\(value) was accepted")
                continue
            }
            #expect(error.message.contains("64 hex digits"))
        }
    }

    @Test func onlyHTTPAndHTTPSAreDownloadedAndTheRefusalHidesCredentials() {
        guard case .failure(let error) = TransferArguments.parse(["ftp://user:pw@host/f", "f"]) else {
            Issue.record("ftp:// was accepted")
            return
        }
        #expect(error.message.contains("not an http:// or https:// URL"))
        #expect(!error.message.contains("pw"))
    }

    @Test func missingOrExtraArgumentsAreUsageErrors() {
        for arguments in [[], ["http://h/f"], ["http://h/f", "a", "b"], ["--verbose", "http://h/f", "f"],
                          ["http://h/f", "dir/"]] {
            if case .success = TransferArguments.parse(arguments) { Issue.record("\(arguments) was accepted") }
        }
    }
}

struct RedactedURLTests {
    @Test func userinfoQueryAndFragmentNeverReachTheLog() {
        #expect(RedactedURL.redact("https://user:secret@example.com:8443/a/b.iso?token=abc#x")
                == "https://example.com:8443/a/b.iso?…")
        #expect(RedactedURL.redact("http://example.com/f") == "http://example.com/f")
        #expect(RedactedURL.redact("http://a@b@example.com/f?sig=1@2") == "http://example.com/f?…")
        #expect(RedactedURL.redact("user:pw@host/f") == "host/f")
    }
}
