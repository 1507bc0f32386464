// SPDX-License-Identifier: Apache-2.0
/// `transfer [--sha256 HEX] URL DEST`, parsed. Usage errors say what was wrong and how to call it.
public struct TransferArguments: Equatable, Sendable {
    public static let usage = "usage: transfer [--sha256 HEX] URL DEST"

    public let url: String
    public let destination: String
    /// Lowercase hex of the expected SHA-256 of the whole file, if asked for.
    public let sha256: String?

    public init(url: String, destination: String, sha256: String? = nil) {
        self.url = url
        self.destination = destination
        self.sha256 = sha256
    }

    /// The arguments after argv[0]; the error text is printed as is, followed by ``usage``.
    public static func parse(_ arguments: [String]) -> Result<TransferArguments, UsageError> {
        var positional: [String] = []
        var sha256: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                positional += arguments[index...]
                break
            }
            if argument == "--sha256" || argument.hasPrefix("--sha256=") {
                let value: String
                if argument == "--sha256" {
                    guard index < arguments.count else { return .failure(UsageError("--sha256 needs a value: 64 hex digits")) }
                    value = arguments[index]
                    index += 1
                } else {
                    value = String(argument.dropFirst("--sha256=".count))
                }
                guard let hex = normalizedSHA256(value) else {
                    return .failure(UsageError("--sha256 \(value.prefix(80)) is not a SHA-256: give 64 hex digits, as sha256sum prints them"))
                }
                sha256 = hex
            } else if argument.hasPrefix("-") && argument.count > 1 {
                return .failure(UsageError("unknown option \(argument.prefix(80))"))
            } else {
                positional.append(argument)
            }
        }
        guard positional.count == 2 else {
            return .failure(UsageError("expected a URL and a destination, got \(positional.count) argument(s)"))
        }
        let url = positional[0], destination = positional[1]
        guard url.lowercased().hasPrefix("http://") || url.lowercased().hasPrefix("https://") else {
            return .failure(UsageError("\(RedactedURL.redact(url).prefix(200)) is not an http:// or https:// URL"))
        }
        guard !destination.isEmpty, !destination.hasSuffix("/") else {
            return .failure(UsageError("the destination must name a file, not a directory: \(destination.prefix(200))"))
        }
        return .success(TransferArguments(url: url, destination: destination, sha256: sha256))
    }

    static func normalizedSHA256(_ text: String) -> String? {
        let lower = text.lowercased()
        guard lower.utf8.count == 64, lower.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            return nil
        }
        return lower
    }
}

public struct UsageError: Error, Equatable, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
}
