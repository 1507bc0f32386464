// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A run's directive lines on stdout (DESIGN §5). Progress is sampled, not observed (Foundation's
/// `Progress` has no KVO on Linux): a changed value becomes one `PROGRESS=N/M` line at most every
/// quarter second, and the last one is written before the process ends.
final class TaskOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var followed: Progress?
    private var lastWritten: (Int64, Int64)?
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
    /// completed clamped to the total (the agent ignores an out-of-range line).
    func sample() {
        lock.withLock {
            guard let progress = followed, progress.totalUnitCount > 0 else { return }
            let total = progress.totalUnitCount
            let done = min(max(progress.completedUnitCount, 0), total)
            if let last = lastWritten, last == (done, total) { return }
            lastWritten = (done, total)
            writeLine("PROGRESS=\(done)/\(total)")
        }
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

    /// A directive is one line: line breaks inside a value would start another.
    static func oneLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
