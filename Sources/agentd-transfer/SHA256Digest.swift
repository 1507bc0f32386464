// SPDX-License-Identifier: Apache-2.0
import CLibCrypto

/// SHA-256 through OpenSSL's EVP interface (hardware SHA extensions where the CPU has them).
final class SHA256Digest {
    private let context: OpaquePointer?

    init() {
        context = EVP_MD_CTX_new()
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// Lowercase hex, as sha256sum prints it.
    func hexDigest() -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in digest.prefix(Int(length)) {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
