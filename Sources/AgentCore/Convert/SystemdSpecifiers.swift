// SPDX-License-Identifier: Apache-2.0
/// The specifiers systemd resolves in a unit file (systemd.unit(5)) whose values do not depend
/// on the machine or the moment: the unit's own names and the system manager's directories.
/// `convert` fills them in; any other (`%h`, `%H`, `%u`…) is left as written, for the
/// conversion to name.
public struct SystemdSpecifiers: Sendable {
    /// The unit's full name: `e2scrub@dev-sda1.service`.
    public let unitName: String

    public init(unitName: String) {
        self.unitName = unitName
    }

    /// `text` with the specifiers above filled in (a `%` in a value written `%%`, as systemd's
    /// own literal), `%%` kept, any other specifier as written.
    public func expand(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var out = ""
        text.forEachPercentPart { part in
            switch part {
            case .character(let character): out.append(character)
            case .literalPercent: out += "%%"
            case .danglingPercent: out += "%"
            case .specifier(let character): out += value(of: character)?.replacingPercent() ?? "%" + String(character)
            }
        }
        return out
    }

    func value(of specifier: Character) -> String? {
        switch specifier {
        case "n": unitName
        case "N": nameWithoutSuffix
        case "p": prefix
        case "P": Self.unescaped(prefix)
        case "i": instance
        case "I": Self.unescaped(instance)
        case "j": prefix.split(separator: "-", omittingEmptySubsequences: false).last.map(String.init) ?? prefix
        case "J": Self.unescaped(prefix.split(separator: "-", omittingEmptySubsequences: false).last.map(String.init) ?? prefix)
        case "f": "/" + Self.unescaped(instance.isEmpty ? prefix : instance)
        case "t": "/run"
        case "S": "/var/lib"
        case "C": "/var/cache"
        case "L": "/var/log"
        case "E": "/etc"
        case "T": "/tmp"
        case "V": "/var/tmp"
        default: nil
        }
    }

    private var nameWithoutSuffix: String {
        guard let dot = unitName.lastIndex(of: ".") else { return unitName }
        return String(unitName[..<dot])
    }

    private var prefix: String {
        let name = nameWithoutSuffix
        guard let at = name.firstIndex(of: "@") else { return name }
        return String(name[..<at])
    }

    private var instance: String {
        let name = nameWithoutSuffix
        guard let at = name.firstIndex(of: "@") else { return "" }
        return String(name[name.index(after: at)...])
    }

    /// systemd-escape's reverse for a unit name's part: `-` is `/`, `\xNN` the byte NN.
    static func unescaped(_ text: String) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte == UInt8(ascii: "-") {
                bytes.append(UInt8(ascii: "/"))
            } else if byte == UInt8(ascii: "\\"), index + 3 < utf8.count, utf8[index + 1] == UInt8(ascii: "x"),
                      let high = hexValue(utf8[index + 2]), let low = hexValue(utf8[index + 3]) {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(byte)
            }
            index += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// A unit file value read as systemd reads its `%`s (systemd.unit(5), Specifiers).
enum PercentPart {
    case character(Character)
    /// `%%`: a literal `%`.
    case literalPercent
    /// `%c`: the specifier `c`.
    case specifier(Character)
    /// A `%` ending the value.
    case danglingPercent
}

extension String {
    /// The value's characters, its `%` pairs read as one part each.
    func forEachPercentPart(_ visit: (PercentPart) -> Void) {
        var percent = false
        for character in self {
            if percent {
                percent = false
                visit(character == "%" ? .literalPercent : .specifier(character))
            } else if character == "%" {
                percent = true
            } else {
                visit(.character(character))
            }
        }
        if percent { visit(.danglingPercent) }
    }

    /// Each `%` doubled: systemd's literal `%`.
    func replacingPercent() -> String {
        guard contains("%") else { return self }
        return split(separator: "%", omittingEmptySubsequences: false).joined(separator: "%%")
    }
}
