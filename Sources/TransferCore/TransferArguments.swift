// SPDX-License-Identifier: Apache-2.0
/// `transfer [--sha256 HEX] [--min-speed RATE] [--min-speed-time SECONDS] URL DEST`, parsed. Usage
/// errors say what was wrong and how to call it.
public struct TransferArguments: Equatable, Sendable {
    public static let usage = "usage: transfer [--sha256 HEX] [--min-speed BYTES_PER_SECOND] [--min-speed-time SECONDS] URL DEST"

    public let url: String
    public let destination: String
    /// Lowercase hex of the expected SHA-256 of the whole file, if asked for.
    public let sha256: String?
    /// Slower than this for that long: given up with exit 13.
    public let minimumSpeed: MinimumSpeed

    public init(url: String, destination: String, sha256: String? = nil, minimumSpeed: MinimumSpeed = .standard) {
        self.url = url
        self.destination = destination
        self.sha256 = sha256
        self.minimumSpeed = minimumSpeed
    }

    /// The arguments after argv[0]; the error text is printed as is, followed by ``usage``.
    public static func parse(_ arguments: [String]) -> Result<TransferArguments, UsageError> {
        var positional: [String] = []
        var sha256: String?
        var rate = MinimumSpeed.standard.bytesPerSecond
        var seconds = MinimumSpeed.standard.seconds
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                positional += arguments[index...]
                break
            }
            guard argument.hasPrefix("-") && argument.count > 1 else {
                positional.append(argument)
                continue
            }
            // `--name VALUE` or `--name=VALUE`.
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard let hint = optionHints[name] else { return .failure(UsageError("unknown option \(argument.prefix(80))")) }
            let value: String
            if parts.count == 2 {
                value = String(parts[1])
            } else {
                guard index < arguments.count else { return .failure(UsageError("\(name) needs a value: \(hint)")) }
                value = arguments[index]
                index += 1
            }
            switch name {
            case "--sha256":
                guard let hex = normalizedSHA256(value) else {
                    return .failure(UsageError("--sha256 \(value.prefix(80)) is not a SHA-256: give \(hint), as sha256sum prints them"))
                }
                sha256 = hex
            case "--min-speed":
                guard let parsed = MinimumSpeed.rate(value) else {
                    return .failure(UsageError("--min-speed \(value.prefix(80)) is not a speed: give \(hint)"))
                }
                rate = parsed
            default:
                guard let parsed = MinimumSpeed.seconds(value) else {
                    return .failure(UsageError("--min-speed-time \(value.prefix(80)) is not a duration: give \(hint)"))
                }
                seconds = parsed
            }
        }
        guard positional.count == 2 else {
            return .failure(UsageError("expected a URL and a destination, got \(positional.count) argument(s)"))
        }
        let url = positional[0], destination = positional[1]
        guard url.lowercased().hasPrefix("http://") || url.lowercased().hasPrefix("https://") else {
            return .failure(UsageError("\(RedactedURL.redact(url).prefix(200)) is not an http:// or https:// URL"))
        }
        // `.` and `..` name directories whatever the path before them.
        let name = destination.split(separator: "/").last
        guard !destination.isEmpty, !destination.hasSuffix("/"), name != ".", name != ".." else {
            return .failure(UsageError("the destination must name a file, not a directory: \(destination.prefix(200))"))
        }
        return .success(TransferArguments(url: url, destination: destination, sha256: sha256,
                                          minimumSpeed: MinimumSpeed(bytesPerSecond: rate, seconds: seconds)))
    }

    /// The options that take a value, and what that value must be.
    static let optionHints = [
        "--sha256": "64 hex digits",
        "--min-speed": "bytes a second, at least 1, with k or M for thousands or millions (10k)",
        "--min-speed-time": "whole seconds, 1 to \(MinimumSpeed.longestSeconds)",
    ]

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
