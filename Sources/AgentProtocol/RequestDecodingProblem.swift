// SPDX-License-Identifier: Apache-2.0
/// What is wrong with a well-formed JSON request whose fields are not what their verb takes, in
/// the words of the wire: the field's dotted path and what it holds (`"request.requiresNetwork"
/// does not take "metered"`, `"limit" must be a number, not a string`). nil when the error
/// names no field (the line is not a JSON object, or has no `command`).
public enum RequestDecodingProblem {
    public static func describe(_ error: any Error) -> String? {
        guard let error = error as? DecodingError else { return nil }
        switch error {
        case .typeMismatch(let type, let context):
            guard let path = path(context.codingPath) else { return nil }
            let found = after("but found ", in: context.debugDescription).map { rest in
                rest.hasSuffix(" instead.") ? String(rest.dropLast(" instead.".count)) : rest
            }
            return "\"\(path)\" must be \(kind(of: type))" + (found.map { ", not \($0)" } ?? "")
        case .valueNotFound(let type, let context):
            guard let path = path(context.codingPath) else { return nil }
            return "\"\(path)\" must be \(kind(of: type)), not null (leave it out instead)"
        case .keyNotFound(let key, let context):
            guard let path = path(context.codingPath + [key]) else { return nil }
            return "\"\(path)\" is missing"
        case .dataCorrupted(let context):
            guard let path = path(context.codingPath) else { return nil }
            // A closed set's word it does not have: Swift says "Cannot initialize T from invalid
            // String value WORD".
            if let word = after("from invalid String value ", in: context.debugDescription) {
                return "\"\(path)\" does not take \"\(word)\""
            }
            return "\"\(path)\" is not a value it takes"
        @unknown default:
            return nil
        }
    }

    private static func after(_ marker: String, in text: String) -> String? {
        text.firstRange(of: marker).map { String(text[$0.upperBound...]) }
    }

    /// `request.requiresNetwork`, `filter.kinds[0]`; nil for the request as a whole.
    private static func path(_ keys: [any CodingKey]) -> String? {
        guard !keys.isEmpty else { return nil }
        var text = ""
        for key in keys {
            if let index = key.intValue, key.stringValue == String(index) || key.stringValue.hasPrefix("Index") {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text
    }

    private static func kind(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt64.Type, is Double.Type: "a number"
        case is [String].Type, is [Any].Type: "a list"
        default:
            "\(type)".hasPrefix("Array") ? "a list" : "\(type)".hasPrefix("Dictionary") ? "an object" : "a \(type)"
        }
    }
}
