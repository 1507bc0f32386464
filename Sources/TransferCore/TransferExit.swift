// SPDX-License-Identifier: Apache-2.0
/// The plugin's exit statuses, one per kind of failure, so a job's `Retry=`, `agentctl history` and a
/// person reading `failure(exit N)` can tell them apart. agentd-transfer(1) lists the same table.
public enum TransferExit: Int32, CaseIterable, Sendable {
    case success = 0
    /// Bad arguments: fix the job's Exec= or the submit command.
    case usage = 2
    /// HTTP 404 or 410: the file is not (or no longer) there.
    case notFound = 10
    /// Any other HTTP 4xx: the request was refused (401, 403, 416 twice, …).
    case clientError = 11
    /// HTTP 5xx: the server failed; worth retrying later.
    case serverError = 12
    /// No answer: the name did not resolve, the connection was refused, timed out, or broke off.
    case network = 13
    /// TLS: the handshake failed or the certificate was not trusted.
    case tls = 14
    /// DEST.part or DEST could not be written, synced or renamed (full disk, permissions, no directory).
    case writeError = 15
    /// The downloaded file's SHA-256 is not the one given with --sha256; DEST.part is kept.
    case checksumMismatch = 16
    /// Stopped by SIGTERM (or SIGINT): a last checkpoint was printed; the next run resumes.
    case interrupted = 17
    /// Anything else: an unexpected answer, too many redirects, a protocol error.
    case otherError = 18

    /// The exit status for an HTTP error status (≥ 400).
    public static func forHTTPStatus(_ status: Int) -> TransferExit {
        switch status {
        case 404, 410: .notFound
        case 400..<500: .clientError
        case 500..<600: .serverError
        default: .otherError
        }
    }
}
