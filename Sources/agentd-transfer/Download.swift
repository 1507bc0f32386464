// SPDX-License-Identifier: Apache-2.0
import CCurl
import TransferCore

/// One request for the file: sends Range/If-Range when resuming, decides from the answer whether its
/// body continues DEST.part or replaces it, writes and hashes the body, and prints progress and
/// checkpoints as it goes. libcurl calls back into it on this thread, inside `perform()`.
final class Download {
    enum Outcome {
        case complete
        case interrupted
        case http(Int)
        case network(String)
        case tls(String)
        case write(String)
        case other(String)
    }

    private let easy = CurlEasy()
    private let url: String
    let plan: ResumePlan
    private let part: PartFile
    private let digest: SHA256Digest?
    private let clock: MonotonicClock
    private let minimumSpeed: MinimumSpeed
    private var headerLimit = ResponseHeaderLimit()
    private(set) var placement: BodyPlacement?
    private(set) var validator: Validator?
    private var base: Int64 = 0
    private var received: Int64 = 0
    private(set) var total: Int64?
    private var failure: Outcome?
    private var interrupted = false
    private var lastSignalCheck: Duration = .zero
    private var writebackMark: Int64 = 0
    private var lastMark: Int64 = 0
    private var progress: ProgressReport
    private var checkpoints: CheckpointSchedule

    init(url: String, plan: ResumePlan, part: PartFile, verify: Bool, minimumSpeed: MinimumSpeed,
         clock: MonotonicClock) {
        self.url = url
        self.minimumSpeed = minimumSpeed
        self.plan = plan
        self.part = part
        self.digest = verify ? SHA256Digest() : nil
        self.clock = clock
        progress = ProgressReport(startBytes: plan.offset)
        checkpoints = CheckpointSchedule(startBytes: plan.offset)
    }

    /// Bytes of the file on disk so far.
    var bytes: Int64 { base + received }

    var checkpoint: TransferCheckpoint { TransferCheckpoint(offset: bytes, validator: validator) }

    var sha256: String? { digest?.hexDigest() }

    var finalLines: [String] { progress.finalLines(bytes: bytes) }

    func perform() -> Outcome {
        configure()
        let code = easy.perform()
        if interrupted { return .interrupted }
        if let failure { return failure }
        guard code == CURLE_OK else { return classify(code) }
        if placement == nil {
            // An empty body: no write callback ran, so decide now (a 200 of zero bytes).
            guard place() else { return failure ?? .other("could not place the body") }
        }
        return .complete
    }

    private func configure() {
        easy.set(CURLOPT_URL, url)
        easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        easy.set(CURLOPT_FOLLOWLOCATION, 1)
        easy.set(CURLOPT_MAXREDIRS, 10)
        easy.set(CURLOPT_FAILONERROR, 1)
        easy.set(CURLOPT_NOSIGNAL, 1)
        easy.set(CURLOPT_CONNECTTIMEOUT, 30)
        // A connection slower than the minimum (1 kB/s over 60 s unless --min-speed says otherwise),
        // a silent one included, is given up (exit 13), not waited on for ever.
        easy.set(CURLOPT_LOW_SPEED_LIMIT, minimumSpeed.bytesPerSecond)
        easy.set(CURLOPT_LOW_SPEED_TIME, minimumSpeed.seconds)
        easy.set(CURLOPT_BUFFERSIZE, 256 << 10)
        easy.set(CURLOPT_USERAGENT, "agentd-transfer")
        easy.set(CURLOPT_NOPROGRESS, 0)
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = agentd_curl_set_pointer(easy.handle, CURLOPT_WRITEDATA, me)
        _ = agentd_curl_set_write_function(easy.handle) { data, size, count, context in
            guard let context else { return 0 }
            let download = Unmanaged<Download>.fromOpaque(context).takeUnretainedValue()
            let length = size * count
            return download.body(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
        }
        _ = agentd_curl_set_pointer(easy.handle, CURLOPT_HEADERDATA, me)
        _ = agentd_curl_set_header_function(easy.handle) { data, size, count, context in
            guard let context else { return 0 }
            let download = Unmanaged<Download>.fromOpaque(context).takeUnretainedValue()
            let length = size * count
            return download.header(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
        }
        _ = agentd_curl_set_pointer(easy.handle, CURLOPT_XFERINFODATA, me)
        _ = agentd_curl_set_xferinfo_function(easy.handle) { context, _, _, _, _ in
            guard let context else { return 1 }
            return Unmanaged<Download>.fromOpaque(context).takeUnretainedValue().tick() ? 0 : 1
        }
        if case .resume(let offset, let validator) = plan {
            easy.set(CURLOPT_RANGE, "\(offset)-")
            easy.addHeader("If-Range: " + validator.headerValue)
        }
    }

    /// The write callback: false aborts the transfer (libcurl then returns CURLE_WRITE_ERROR).
    private func body(_ data: UnsafeRawBufferPointer) -> Bool {
        if placement == nil && !place() { return false }
        do {
            try part.append(data)
        } catch {
            failure = .write(error.message)
            return false
        }
        digest?.update(data)
        received += Int64(data.count)
        if checkpoints.due(bytes: bytes) {
            // Everything up to the previous mark: written a while ago, mostly clean by now.
            part.startWriteback(offset: writebackMark, length: max(0, lastMark - writebackMark))
            writebackMark = lastMark
            lastMark = bytes
            Output.directive("CHECKPOINT=" + checkpoint.encoded)
        }
        return true
    }

    /// The header callback: false (abort) once an answer's headers are over ``ResponseHeaderLimit``.
    private func header(_ line: UnsafeRawBufferPointer) -> Bool {
        guard headerLimit.accept(line) else {
            failure = .other("the server sent more than \(ResponseHeaderLimit.maximumBytes >> 10) KiB of headers, "
                + "which no file server needs; it is broken or hostile: not retried")
            return false
        }
        return true
    }

    /// Decides, from the first answer's status and headers, where its body goes.
    private func place() -> Bool {
        let status = easy.responseCode
        let contentRange = easy.header("Content-Range")
        let decision = BodyPlacement.decide(plan: plan, status: status, contentRange: contentRange)
        placement = decision
        validator = Validator.of(etag: easy.header("ETag"), lastModified: easy.header("Last-Modified"))
        do {
            switch decision {
            case .append(let offset):
                base = offset
                total = ContentRange.total(contentRange) ?? easy.contentLength.map { offset + $0 }
                try part.reset(to: offset)
                if let digest { try part.hashPrefix(offset, into: digest) }
                Output.message("resuming at byte \(offset) (the server answered 206 Partial Content)")
            case .restart:
                base = 0
                total = easy.contentLength
                try part.reset(to: 0)
                if plan != .fresh {
                    Output.message("the file changed on the server since the last run (If-Range did not match: answer \(status)); starting again from zero")
                }
            case .unexpected(let why):
                failure = .other("the server sent \(why); DEST.part was left as it was")
                return false
            }
        } catch {
            failure = .write(error.message)
            return false
        }
        // The validator reaches the agent at once, not only after the first few MB.
        Output.directive("CHECKPOINT=" + checkpoint.encoded)
        return true
    }

    /// The progress callback, at least once a second: SIGTERM, then throttled progress lines.
    private func tick() -> Bool {
        let now = clock.elapsed
        if now - lastSignalCheck >= .milliseconds(50) {
            lastSignalCheck = now
            if TerminationSignal.isPending {
                interrupted = true
                return false
            }
        }
        guard placement != nil else { return true }
        for line in progress.lines(bytes: bytes, total: total, now: now) { Output.directive(line) }
        return true
    }

    private func classify(_ code: CURLcode) -> Outcome {
        let text = easy.errorText(code)
        switch code {
        case CURLE_HTTP_RETURNED_ERROR:
            return .http(easy.responseCode)
        case CURLE_OPERATION_TIMEDOUT where easy.wasConnected:
            // Connected, then slower than the minimum speed: say which minimum, and how to lower it.
            return .network(text + " (the minimum is \(minimumSpeed.bytesPerSecond) bytes/s over "
                + "\(minimumSpeed.seconds) s: a slow server needs a lower --min-speed or a longer --min-speed-time)")
        case CURLE_OUT_OF_MEMORY where placement == nil:
            // libcurl gives up a single header line over 100 kB as "Out of memory", before the
            // header callback sees it: the answer, not this machine, is at fault.
            return .other("the server's answer has a header line too long to hold (libcurl: \(text)); "
                + "it is broken or hostile: not retried")
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT,
             CURLE_OPERATION_TIMEDOUT, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING,
             CURLE_PARTIAL_FILE:
            return .network(text)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE,
             CURLE_USE_SSL_FAILED, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
             CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED:
            return .tls(text)
        case CURLE_WRITE_ERROR:
            return .write(text)
        default:
            return .other(text)
        }
    }
}
