// SPDX-License-Identifier: Apache-2.0
/// A URL as the plugin may print it: no userinfo (`user:password@`), no query and no fragment, where
/// tokens and signatures live. Everything the plugin logs goes through this.
public enum RedactedURL {
    public static func redact(_ url: String) -> String {
        // Cut the query and fragment first: an `@` or `/` inside them must not confuse the rest.
        let beforeQuery = url.prefix { $0 != "?" && $0 != "#" }
        let marker = beforeQuery.count < url.count ? "?…" : ""
        guard let colon = beforeQuery.firstIndex(of: ":"), beforeQuery[colon...].hasPrefix("://") else {
            // Not scheme://…: drop everything up to an `@` anyway, in case it is user:password@host.
            let tail = beforeQuery.lastIndex(of: "@").map { beforeQuery[beforeQuery.index(after: $0)...] } ?? beforeQuery
            return String(tail) + marker
        }
        let scheme = beforeQuery[..<colon]
        let rest = beforeQuery[beforeQuery.index(colon, offsetBy: 3)...]
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        let host = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        return scheme + "://" + host + path + marker
    }
}
