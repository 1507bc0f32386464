// SPDX-License-Identifier: Apache-2.0
import Glibc
import TransferCore

/// One run of the plugin: plan the request from DEST.part and AGENTD_CHECKPOINT, download, then
/// verify, sync and rename — or say why not, with the exit status agentd-transfer(1) documents.
struct TransferRun {
    let arguments: TransferArguments
    let checkpoint: TransferCheckpoint?
    private let clock = MonotonicClock()
    private var shownURL: String { RedactedURL.redact(arguments.url) }

    init(arguments: TransferArguments, checkpoint: TransferCheckpoint?) {
        self.arguments = arguments
        self.checkpoint = checkpoint
    }

    func run() -> TransferExit {
        let part: PartFile
        do {
            part = try PartFile(destination: arguments.destination)
        } catch {
            Output.message(error.message)
            return .writeError
        }
        Output.directive("TITLE=Downloading " + Self.fileName(arguments.destination))
        var plan = ResumePlan.decide(partSize: part.size, checkpoint: checkpoint)
        Output.message("downloading \(shownURL) to \(arguments.destination)"
            + (plan == .fresh ? "" : " (resuming at byte \(plan.offset))"))
        while true {
            let download = Download(url: arguments.url, plan: plan, part: part,
                                    verify: arguments.sha256 != nil, minimumSpeed: arguments.minimumSpeed, clock: clock)
            let outcome = download.perform()
            // 416: what is on disk is not a prefix of the file (it is as long or longer): start over.
            if case .http(416) = outcome, plan != .fresh {
                Output.message("the server cannot serve bytes \(plan.offset)- (416); starting again from zero")
                plan = .fresh
                continue
            }
            let exit = finish(outcome, download, part)
            // A failure before any byte arrived (404, refused, …) leaves no empty DEST.part behind.
            if exit != .success && exit != .checksumMismatch { part.removeIfEmpty() }
            return exit
        }
    }

    private func finish(_ outcome: Download.Outcome, _ download: Download, _ part: PartFile) -> TransferExit {
        switch outcome {
        case .complete:
            return complete(download, part)
        case .interrupted:
            saveCheckpoint(download, part)
            Output.message("stopped by a signal at byte \(download.bytes)"
                + (download.total.map { " of \($0)" } ?? "") + "; " + Self.nextRun(download))
            return .interrupted
        case .http(let status):
            let exit = TransferExit.forHTTPStatus(status)
            Output.message("\(shownURL) answered HTTP \(status); " + Self.advice(for: exit))
            return exit
        case .network(let text):
            saveCheckpoint(download, part)
            Output.message("\(shownURL): \(text); check the network and the host name"
                + (download.bytes > 0 ? " (\(Self.nextRun(download)))" : ""))
            return .network
        case .tls(let text):
            Output.message("\(shownURL): TLS failed: \(text); check the server's certificate and the system's CA store")
            return .tls
        case .write(let text):
            Output.message(text)
            return .writeError
        case .other(let text):
            Output.message("\(shownURL): \(text)")
            return .otherError
        }
    }

    private func complete(_ download: Download, _ part: PartFile) -> TransferExit {
        if let expected = arguments.sha256, let actual = download.sha256, actual != expected {
            Output.message("SHA-256 of \(part.path) is \(actual), not the expected \(expected); "
                + "the file is kept as \(part.path) for inspection (remove it to download again)")
            return .checksumMismatch
        }
        do {
            try part.commit()
        } catch {
            Output.message(error.message)
            return .writeError
        }
        for line in download.finalLines { Output.directive(line) }
        Output.directive("RESULT=" + Self.absolute(arguments.destination))
        Output.message("downloaded \(download.bytes) bytes to \(arguments.destination)"
            + (arguments.sha256 == nil ? "" : ", SHA-256 verified"))
        return .success
    }

    /// A last checkpoint, once what is on disk is synced, when the answer's validator is known
    /// (before that the previous checkpoint stays as it was).
    private func saveCheckpoint(_ download: Download, _ part: PartFile) {
        switch download.placement {
        case .append?, .restart?:
            try? part.sync()
            Output.directive("CHECKPOINT=" + download.checkpoint.encoded)
        case .unexpected?, nil:
            return
        }
    }

    /// What the next run does with the bytes a stopped run leaves: it resumes only against the
    /// server's ETag or Last-Modified (ResumePlan), so without one it starts over.
    static func nextRun(_ download: Download) -> String {
        guard download.bytes > 0 else { return "the next run starts over" }
        if download.checkpoint.resumable { return "checkpoint saved, the next run resumes at byte \(download.bytes)" }
        return "the next run starts over: the server sent no ETag or Last-Modified to resume against"
    }

    static func advice(for exit: TransferExit) -> String {
        switch exit {
        case .notFound: "the file is not there: check the URL"
        case .clientError: "the server refused the request: check the URL and any credentials it needs"
        case .serverError: "the server failed; the job's Retry= tries again later"
        default: "see agentd-transfer(1)"
        }
    }

    static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// RESULT= is an absolute path: a chained job runs in its own STATE_DIRECTORY.
    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let directory = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let relative = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
        return (directory == "/" ? "" : directory) + "/" + relative
    }
}
