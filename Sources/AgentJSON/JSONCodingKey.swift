// SPDX-License-Identifier: Apache-2.0

/// The keys the coder adds to coding paths: array indices and `super`.
struct JSONCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    static let `super` = JSONCodingKey(stringValue: "super")
}
