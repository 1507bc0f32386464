// SPDX-License-Identifier: Apache-2.0
import CCurl

/// A libcurl easy handle, its request headers and its error buffer, freed together.
final class CurlEasy {
    let handle: UnsafeMutableRawPointer?
    private var headers: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))

    init() {
        handle = curl_easy_init()
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        _ = agentd_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headers)
        errorBuffer.deallocate()
    }

    func set(_ option: CURLoption, _ value: Int) {
        _ = agentd_curl_set_long(handle, option, value)
    }

    func set(_ option: CURLoption, _ value: String) {
        // libcurl copies string options (since 7.17), so the temporary C string may go.
        _ = value.withCString { agentd_curl_set_string(handle, option, $0) }
    }

    func addHeader(_ line: String) {
        headers = curl_slist_append(headers, line)
        _ = agentd_curl_set_headers(handle, headers)
    }

    func perform() -> CURLcode {
        curl_easy_perform(handle)
    }

    var responseCode: Int {
        var code = 0
        _ = agentd_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// Content-Length of the current response; nil when the server sent none.
    var contentLength: Int64? {
        var length: curl_off_t = -1
        _ = agentd_curl_get_offset(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
        return length >= 0 ? Int64(length) : nil
    }

    /// Whether a connection was made (a timeout after it is the minimum speed's, not connect's).
    var wasConnected: Bool {
        var microseconds: curl_off_t = 0
        _ = agentd_curl_get_offset(handle, CURLINFO_CONNECT_TIME_T, &microseconds)
        return microseconds > 0
    }

    /// A header of the last response (after redirects), nil when absent.
    func header(_ name: String) -> String? {
        var found: UnsafeMutablePointer<curl_header>?
        // origin 1 = CURLH_HEADER (plain server headers); request -1 = the last request.
        let status = curl_easy_header(handle, name, 0, 1, -1, &found)
        guard status == CURLHE_OK, let value = found?.pointee.value else { return nil }
        return String(cString: value)
    }

    /// libcurl's own words for the failure, with the detail in the error buffer when there is one.
    func errorText(_ code: CURLcode) -> String {
        let detail = String(cString: errorBuffer)
        return detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
    }
}
