import AgentProtocol

/// Any JSON value, for the parts of an answer agentctl shows without knowing their shape in
/// advance (fields a newer agentd adds to its status).
public indirect enum JSONValue: Decodable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Decodes a JSON text; nil when it is not JSON.
    public static func parse(_ bytes: [UInt8]) -> JSONValue? {
        try? MessageCoding.decode(JSONValue.self, from: bytes)
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }

    /// The value as people read it: `42`, `0.5`, `yes`/`no`, strings as they are, arrays joined with
    /// commas, objects as `key value` pairs.
    public var display: String {
        switch self {
        case .null: return "-"
        case .bool(let value): return value ? "yes" : "no"
        case .number(let value):
            if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
            return String(value)
        case .string(let value): return DisplayText.sanitized(value)
        case .array(let values): return values.map(\.display).joined(separator: ", ")
        case .object(let fields):
            return fields.keys.sorted().map { "\($0) \(fields[$0]?.display ?? "-")" }.joined(separator: ", ")
        }
    }
}
