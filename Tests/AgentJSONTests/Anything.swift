// SPDX-License-Identifier: Apache-2.0

/// Any JSON value, for documents decoded without their Swift type (the golden files): integers
/// stay integers, other numbers are Doubles.
enum Anything: Codable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([Anything])
    case object([String: Anything])

    init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let flag = try? single.decode(Bool.self) {
            self = .bool(flag)
        } else if let integer = try? single.decode(Int64.self) {
            self = .integer(integer)
        } else if let double = try? single.decode(Double.self) {
            self = .double(double)
        } else if let string = try? single.decode(String.self) {
            self = .string(string)
        } else if let array = try? single.decode([Anything].self) {
            self = .array(array)
        } else {
            self = .object(try single.decode([String: Anything].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var single = encoder.singleValueContainer()
        switch self {
        case .null: try single.encodeNil()
        case .bool(let flag): try single.encode(flag)
        case .integer(let integer): try single.encode(integer)
        case .double(let double): try single.encode(double)
        case .string(let string): try single.encode(string)
        case .array(let array): try single.encode(array)
        case .object(let object): try single.encode(object)
        }
    }
}
