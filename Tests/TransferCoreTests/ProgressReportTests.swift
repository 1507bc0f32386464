// SPDX-License-Identifier: Apache-2.0
import Testing
import TransferCore

struct ProgressReportTests {
    @Test func progressIsPrintedAtMostTenTimesASecond() {
        var report = ProgressReport(startBytes: 0)
        var progressLines = 0
        // A callback every millisecond for 2 s, a kilobyte more each time.
        for millisecond in 0..<2000 {
            let lines = report.lines(bytes: Int64(millisecond + 1) * 1000, total: 10_000_000, now: .milliseconds(millisecond))
            progressLines += lines.filter { $0.hasPrefix("PROGRESS=") }.count
        }
        #expect(progressLines == 20)
    }

    @Test func noProgressLineWithoutNewBytesOrAKnownTotal() {
        var report = ProgressReport(startBytes: 0)
        let first = report.lines(bytes: 5, total: 10, now: .zero)
        let same = report.lines(bytes: 5, total: 10, now: .milliseconds(500))
        var unknown = ProgressReport(startBytes: 0)
        let unknownTotal = unknown.lines(bytes: 5, total: nil, now: .seconds(2))
        #expect(first == ["PROGRESS=5/10"])
        #expect(same.allSatisfy { !$0.hasPrefix("PROGRESS=") })
        #expect(unknownTotal.allSatisfy { !$0.hasPrefix("PROGRESS=") })
    }

    @Test func theSubtitleShowsDoneRateAndTimeLeft() {
        let report = ProgressReport(startBytes: 10_000_000)
        #expect(report.subtitle(bytes: 30_000_000, total: 50_000_000, elapsed: .seconds(4))
                == "30.0 MB of 50.0 MB, 5.0 MB/s, 4 s left")
        #expect(report.subtitle(bytes: 1500, total: nil, elapsed: .seconds(1)) == "1.5 kB, 0 B/s")
    }

    @Test func bytesAndTimesReadAsPeopleSayThem() {
        #expect(ByteCount.text(999) == "999 B")
        #expect(ByteCount.text(1_000_000_000) == "1.0 GB")
        #expect(ByteCount.text(999_999) == "1.0 MB")
        #expect(TimeLeft.text(seconds: 245) == "4 min 05 s")
        #expect(TimeLeft.text(seconds: 7980) == "2 h 13 min")
    }

    @Test func aCheckpointIsDueAfterEveryIntervalOfBytes() {
        var schedule = CheckpointSchedule(startBytes: 100, interval: 1000)
        let answers = [1099, 1100, 2000, 2100].map { schedule.due(bytes: Int64($0)) }
        #expect(answers == [false, true, false, true])
    }
}

struct TransferExitTests {
    @Test func eachKindOfHTTPFailureHasItsOwnStatus() {
        #expect(TransferExit.forHTTPStatus(404) == .notFound)
        #expect(TransferExit.forHTTPStatus(410) == .notFound)
        #expect(TransferExit.forHTTPStatus(403) == .clientError)
        #expect(TransferExit.forHTTPStatus(503) == .serverError)
        #expect(Set(TransferExit.allCases.map(\.rawValue)).count == TransferExit.allCases.count)
    }
}
