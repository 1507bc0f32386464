// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `agentctl calendar` against `systemd-analyze calendar` (systemd 252) on the corpus in
/// Tests/Golden/calendar/corpus.txt (systemd.time(7)'s examples, Debian 12's timers, edges):
/// the same normalized forms and the same elapses in six zones — two with daylight saving
/// north and south, one with a 30-minute shift, one without — around their transitions. The
/// one documented difference (docs/configuration.md): a slot in a spring-forward gap runs at
/// the transition, where systemd skips it.
@Suite(.serialized) struct CalendarSystemdAgreementTests {
    static let systemdAnalyze = "/usr/bin/systemd-analyze"
    static let installed = FileManager.default.isExecutableFile(atPath: systemdAnalyze)

    static let corpus: (valid: [String], refused: [String]) = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Golden/calendar/corpus.txt").path
        let lines = ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n")
            .map(String.init).filter { !$0.isEmpty && !$0.hasPrefix("#") }
        return (lines.filter { !$0.hasPrefix("! ") }, lines.filter { $0.hasPrefix("! ") }.map { String($0.dropFirst(2)) })
    }()

    static let zones = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Pacific/Auckland",
                        "Asia/Kolkata"]
    static let baseTimes = ["2024-03-09 12:00", "2024-03-30 12:00", "2024-04-06 12:00", "2024-09-28 12:00",
                            "2024-10-26 12:00", "2024-11-02 12:00", "2023-12-31 23:59:59"]

    /// One expression's block, without the `From now:` lines (they depend on the real clock).
    struct Block: Equatable {
        var header: [String]
        /// Unix seconds of each elapse.
        var elapses: [Int]
    }

    static func blocks(_ output: String) -> [Block] {
        output.components(separatedBy: "\n\n").map { text in
            var block = Block(header: [], elapses: [])
            for line in text.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                if line.hasPrefix("Original form:") || line.hasPrefix("Normalized form:") {
                    block.header.append(line)
                } else if line.hasPrefix("Next elapse:") || line.hasPrefix("Iter. #") || line.hasPrefix("(in UTC):") {
                    guard let instant = utcInstant(line) else { continue }
                    if line.hasPrefix("(in UTC):") { block.elapses[block.elapses.count - 1] = instant } else {
                        block.elapses.append(instant)
                    }
                }
            }
            return block
        }
    }

    /// The instant of `Wed 2024-04-03 15:48:00 UTC` (a local time's line is replaced by the
    /// `(in UTC)` line after it; without one, local time is UTC).
    static func utcInstant(_ line: String) -> Int? {
        let words = line.split(separator: " ").map(String.init)
        guard words.count >= 4, let date = words.dropFirst(2).first(where: { $0.count == 10 && $0.contains("-") }),
              let index = words.firstIndex(of: date), index + 1 < words.count else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.date(from: "\(date) \(words[index + 1])").map { Int($0.timeIntervalSince1970) }
    }

    /// Whether `instant` is a spring-forward transition of `zone`: the documented difference.
    static func isSpringForward(_ instant: Int, zone: String) -> Bool {
        guard let zone = TimeZone(identifier: zone) else { return false }
        let before = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(instant - 1)))
        let after = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(instant)))
        return after > before
    }

    static func run(_ command: String, _ arguments: [String], zone: String) throws -> CommandResult {
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = zone
        return try runCommand(command, arguments, environment: environment)
    }

    @Test(.enabled(if: installed, "systemd-analyze is not installed (Debian package systemd)"))
    func everyCorpusExpressionElapsesAsSystemdSays() throws {
        let valid = Self.corpus.valid
        #expect(valid.count >= 90)
        var compared = 0
        for zone in Self.zones {
            for base in Self.baseTimes {
                let options = ["calendar", "--iterations=8", "--base-time=\(base)"]
                let theirs = try Self.run(Self.systemdAnalyze, options + valid, zone: zone)
                let ours = try Self.run(Binaries.agentctl, options + valid, zone: zone)
                #expect(theirs.status == 0 && ours.status == 0, "\(zone) \(base): \(ours.stderr)")
                let expected = Self.blocks(theirs.stdout), actual = Self.blocks(ours.stdout)
                try #require(expected.count == valid.count && actual.count == valid.count, "\(zone) \(base)")
                for (index, expression) in valid.enumerated() {
                    let want = expected[index], got = actual[index]
                    #expect(got.header == want.header, "\(expression) in \(zone)")
                    let eventZone = expression.split(separator: " ").last.map(String.init)
                        .flatMap { TimeZone(identifier: $0) != nil && $0.contains("/") ? $0 : nil } ?? zone
                    // A slot in a spring-forward gap runs at the transition (systemd skips it).
                    let kept = got.elapses.filter { want.elapses.contains($0) || !Self.isSpringForward($0, zone: eventZone) }
                    let length = min(kept.count, want.elapses.count)
                    #expect(Array(kept.prefix(length)) == Array(want.elapses.prefix(length)),
                            "\(expression) in \(zone) after \(base)")
                    #expect(length >= want.elapses.count - 2, "\(expression) in \(zone) after \(base)")
                    compared += 1
                }
            }
        }
        #expect(compared == valid.count * Self.zones.count * Self.baseTimes.count)
    }

    @Test(.enabled(if: installed, "systemd-analyze is not installed (Debian package systemd)"))
    func whatSystemdRefusesIsRefused() throws {
        for expression in Self.corpus.refused {
            let theirs = try Self.run(Self.systemdAnalyze, ["calendar", expression], zone: "UTC")
            let ours = try Self.run(Binaries.agentctl, ["calendar", expression], zone: "UTC")
            #expect(theirs.status != 0, "systemd accepts \(expression); move it to the valid part of the corpus")
            #expect(ours.status == 1, "\(expression): \(ours.stdout)")
            #expect(ours.stderr.contains("is not a calendar event"), "\(expression): \(ours.stderr)")
        }
    }
}
