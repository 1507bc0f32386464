// SPDX-License-Identifier: Apache-2.0
import Testing
import TransferCore

struct MinimumSpeedTests {
    @Test func theDocumentedDefaultIsOneKilobyteASecondOverAMinute() throws {
        let parsed = try TransferArguments.parse(["http://h/f", "f"]).get()
        #expect(parsed.minimumSpeed == MinimumSpeed(bytesPerSecond: 1000, seconds: 60))
        #expect(MinimumSpeed.standard == parsed.minimumSpeed)
    }

    @Test func bothHalvesCanBeChangedInEitherSpelling() throws {
        let spaced = try TransferArguments.parse(["--min-speed", "10k", "--min-speed-time", "5", "http://h/f", "f"]).get()
        let joined = try TransferArguments.parse(["--min-speed=10000", "http://h/f", "--min-speed-time=5", "f"]).get()
        #expect(spaced.minimumSpeed == MinimumSpeed(bytesPerSecond: 10_000, seconds: 5))
        #expect(joined == spaced)
        #expect(try TransferArguments.parse(["--min-speed", "2M", "http://h/f", "f"]).get().minimumSpeed.bytesPerSecond
                == 2_000_000)
    }

    /// 0 would turn libcurl's check off, and a silent connection would then be waited on for ever.
    @Test func aSpeedOfZeroOrNonsenseIsAUsageError() {
        for value in ["0", "-1", "1.5", "", "k", "10kB", "9999999999"] {
            guard case .failure(let error) = TransferArguments.parse(["--min-speed", value, "http://h/f", "f"]) else {
                Issue.record("--min-speed \(value) was accepted")
                continue
            }
            #expect(error.message.contains("at least 1"), "\(error.message)")
        }
        for value in ["0", "86401", "1m", "-5", ""] {
            if case .success = TransferArguments.parse(["--min-speed-time", value, "http://h/f", "f"]) {
                Issue.record("--min-speed-time \(value) was accepted")
            }
        }
        guard case .failure(let missing) = TransferArguments.parse(["http://h/f", "f", "--min-speed"]) else {
            Issue.record("--min-speed without a value was accepted")
            return
        }
        #expect(missing.message.contains("--min-speed needs a value"))
    }
}

struct ResponseHeaderLimitTests {
    func accept(_ limit: inout ResponseHeaderLimit, _ line: String) -> Bool {
        Array(line.utf8).withUnsafeBytes { limit.accept($0) }
    }

    @Test func sixtyFourKibibytesOfHeadersPassAndOneByteMoreDoesNot() {
        var limit = ResponseHeaderLimit()
        #expect(accept(&limit, "HTTP/1.1 200 OK\r\n"))
        let filler = String(repeating: "a", count: ResponseHeaderLimit.maximumBytes - limit.bytes - 2) + "\r\n"
        #expect(accept(&limit, filler))
        #expect(limit.bytes == ResponseHeaderLimit.maximumBytes)
        #expect(!accept(&limit, "\r"))
    }

    /// A redirect's headers and the final answer's are each held to the limit, not summed.
    @Test func eachAnswerInARedirectChainHasALimitOfItsOwn() {
        var limit = ResponseHeaderLimit()
        let big = String(repeating: "b", count: 40 << 10) + "\r\n"
        #expect(accept(&limit, "HTTP/1.1 302 Found\r\n") && accept(&limit, big))
        #expect(accept(&limit, "HTTP/1.1 200 OK\r\n") && accept(&limit, big))
        #expect(!accept(&limit, big))
    }
}
