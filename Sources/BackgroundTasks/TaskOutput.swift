// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A run's directive lines on stdout (DESIGN §5). Progress is sampled, not observed (Foundation's
/// `Progress` has no KVO on Linux): a changed value becomes one `PROGRESS=N/M` (or `N%`) line at
/// most every quarter second, and the last one is written before the process ends.
final class TaskOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var followed: Progress?
    private var lastWritten: String?
    private var timer: DispatchSourceTimer?
    private let writeLine: @Sendable (String) -> Void

    static let interval: DispatchTimeInterval = .milliseconds(250)

    init(writeLine: @escaping @Sendable (String) -> Void = TaskOutput.standardOutput) {
        self.writeLine = writeLine
    }

    static let standardOutput: @Sendable (String) -> Void = { line in
        // One unbuffered write per line: the agent reads lines as they come, and nothing is
        // left in a buffer when the process exits.
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    func follow(_ progress: Progress) {
        let source = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        source.schedule(deadline: .now() + Self.interval, repeating: Self.interval)
        source.setEventHandler { [weak self] in self?.sample() }
        lock.withLock {
            followed = progress
            timer = source
        }
        source.resume()
    }

    /// Writes the progress when it changed since the last line: `PROGRESS=completed/total`,
    /// completed clamped to the total (the agent ignores an out-of-range line). Work of child
    /// progresses (`Progress(totalUnitCount:parent:pendingUnitCount:)`, `addChild`) counts in a
    /// parent's `fractionCompleted` long before its `completedUnitCount` moves: while the
    /// fraction is a whole percent or more ahead, the line is `PROGRESS=N%` instead, so the run
    /// shows the work and is not expired for making none.
    func sample() {
        lock.withLock {
            guard let progress = followed, let line = Self.line(completed: progress.completedUnitCount,
                                                                total: progress.totalUnitCount,
                                                                fraction: progress.fractionCompleted) else { return }
            if lastWritten == line { return }
            lastWritten = line
            writeLine(line)
        }
    }

    /// The `PROGRESS=` line for a progress's counts and fraction; nil while its total is unknown.
    static func line(completed: Int64, total: Int64, fraction: Double) -> String? {
        guard total > 0 else { return nil }
        let done = min(max(completed, 0), total)
        let unitsPercent = Int(Double(done) / Double(total) * 100 + 1e-9)
        let percent = fraction.isFinite ? Int(min(max(fraction, 0), 1) * 100 + 1e-9) : 0
        return percent > unitsPercent ? "PROGRESS=\(percent)%" : "PROGRESS=\(done)/\(total)"
    }

    func title(_ title: String, subtitle: String) {
        lock.withLock {
            writeLine("TITLE=" + Self.oneLine(title))
            writeLine("SUBTITLE=" + Self.oneLine(subtitle))
        }
    }

    /// The last progress, then nothing more.
    func finish() {
        sample()
        lock.withLock {
            timer?.cancel()
            timer = nil
        }
    }

    /// A directive is one line: line breaks inside a value would start another. By scalar, not
    /// by Character: `"\r\n"` is one Character, neither `"\r"` nor `"\n"`, and would pass whole.
    static func oneLine(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(scalar == "\n" || scalar == "\r" ? " " : scalar)
        }
        return String(scalars)
    }
}
