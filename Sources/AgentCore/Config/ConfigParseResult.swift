// SPDX-License-Identifier: Apache-2.0
/// The outcome of parsing one config file: the value when the file is valid, and every
/// diagnostic (errors and warnings) either way. `value` is nil exactly when there are errors.
public struct ConfigParseResult<Value: Sendable>: Sendable {
    public var value: Value?
    public var diagnostics: [ConfigDiagnostic]

    public init(value: Value?, diagnostics: [ConfigDiagnostic]) {
        self.value = value
        self.diagnostics = diagnostics
    }

    public var errors: [ConfigDiagnostic] { diagnostics.filter { $0.severity == .error } }
    public var warnings: [ConfigDiagnostic] { diagnostics.filter { $0.severity == .warning } }
    public var isValid: Bool { value != nil }

    /// A failed result carrying `diagnostics`.
    static func failure(_ diagnostics: [ConfigDiagnostic]) -> ConfigParseResult {
        ConfigParseResult(value: nil, diagnostics: diagnostics)
    }
}

extension ConfigParseResult: Equatable where Value: Equatable {}
extension ConfigParseResult: Hashable where Value: Hashable {}
