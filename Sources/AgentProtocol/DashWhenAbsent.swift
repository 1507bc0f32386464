// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// A job kind that a job file may not get to say (`list` shows a refused file): `"-"` in JSON
/// when absent, so the field is always a string.
@propertyWrapper
public struct DashWhenAbsent: Codable, Sendable, Hashable {
    public var wrappedValue: JobKind?

    public init(wrappedValue: JobKind?) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard text != "-" else {
            wrappedValue = nil
            return
        }
        guard let kind = JobKind(rawValue: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\"\(text)\" is not a job kind (\(JobKind.validNames), or -)")
        }
        wrappedValue = kind
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue?.rawValue ?? "-")
    }
}
