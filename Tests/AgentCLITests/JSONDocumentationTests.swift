// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// docs/json.md documents every `--json` field; these tests walk each command's golden JSON
/// (Tests/Golden/json/, and the real agentd's in Tests/Golden/integration/) against its tables.
@Suite struct JSONDocumentationTests {
    static let documentation = JSONDocumentation.load()

    /// Golden files and the section of docs/json.md that documents them: `status-inputs.json`
    /// is `status --json`.
    static let goldens: [String] = {
        let directory = GoldenFile.directory
        return ["json", "integration"].flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: directory + "/" + folder)) ?? [])
                .filter { $0.hasSuffix(".json") }.sorted().map { folder + "/" + $0 }
        }
    }()

    @Test func everyCommandWithJSONHasAGoldenAndASection() {
        let commands = Set(Self.goldens.map(JSONDocumentation.command(of:)))
        for command in ["status", "list", "history", "logs", "pending", "explain", "stats", "resources", "check", "metrics"] {
            #expect(commands.contains(command), "no golden json/\(command).json")
            #expect(Self.documentation.sections["\(command) --json"] != nil, "docs/json.md has no section for \(command) --json")
        }
    }

    @Test(arguments: goldens)
    func everyPrintedFieldIsDocumentedAndHasItsType(_ golden: String) throws {
        let text = try String(contentsOfFile: GoldenFile.directory + "/" + golden, encoding: .utf8)
        #expect(!text.contains(#"\/"#), "\(golden): escaped slash")
        let section = JSONDocumentation.command(of: golden) + " --json"
        let documented = Self.documentation.fields(of: section)
        #expect(!documented.isEmpty, "docs/json.md: no fields for \(section)")
        let placeholders = golden.hasPrefix("integration/")
        for (path, value) in JSONDocumentation.flatten(try JSONSerialization.jsonObject(with: Data(text.utf8))) {
            guard let type = documented[path] else {
                Issue.record("\(golden): \(path) is printed but not documented in docs/json.md under \(section)")
                continue
            }
            if placeholders, let string = value as? String, string.hasPrefix("<"), string.hasSuffix(">") { continue }
            if let problem = JSONDocumentation.mismatch(value, type: type, field: path) {
                Issue.record("\(golden): \(path): \(problem)")
            }
        }
    }

    @Test func everyDocumentedFieldIsPrintedByAGolden() throws {
        var printed = Set<String>()
        for golden in Self.goldens where golden.hasPrefix("json/") {
            let text = try String(contentsOfFile: GoldenFile.directory + "/" + golden, encoding: .utf8)
            for (path, _) in JSONDocumentation.flatten(try JSONSerialization.jsonObject(with: Data(text.utf8))) {
                printed.insert(JSONDocumentation.name(of: path))
            }
        }
        for (path, _) in Self.documentation.sections.keys.flatMap({ Self.documentation.fields(of: $0) }) {
            let name = JSONDocumentation.name(of: path)
            #expect(name.isEmpty || printed.contains(name), "docs/json.md documents \(path), which no golden in Tests/Golden/json prints (set it in its fixture)")
        }
    }
}

/// The field tables of docs/json.md: `### section` headings, each with rows
/// ``| `field` | type | meaning |``. A type naming an object section in parentheses
/// (`list of objects (Run record)`) nests that section's fields below the field.
struct JSONDocumentation {
    var sections: [String: [(field: String, type: String)]] = [:]

    static func load() -> JSONDocumentation {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/json.md").path
        var documentation = JSONDocumentation()
        var current: String?
        for line in ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").components(separatedBy: "\n") {
            if line.hasPrefix("### ") {
                current = String(line.dropFirst(4)).replacingOccurrences(of: "`", with: "")
            } else if line.hasPrefix("## ") {
                current = nil
            } else if let section = current, line.hasPrefix("| `") {
                let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                guard cells.count >= 4 else { continue }
                documentation.sections[section, default: []].append((cells[1].replacingOccurrences(of: "`", with: ""), cells[2]))
            }
        }
        return documentation
    }

    /// `status` for `json/status-inputs.json`.
    static func command(of golden: String) -> String {
        let file = (golden as NSString).lastPathComponent
        return String(file.prefix { $0 != "." && $0 != "-" })
    }

    /// The last component of a path: `startedAt` for `running[].startedAt`.
    static func name(of path: String) -> String {
        String(path.split(separator: ".").last ?? "").replacingOccurrences(of: "[]", with: "")
    }

    /// Every documented path of a section and its type: `running[].startedAt: instant`.
    func fields(of section: String, prefix: String = "", depth: Int = 0) -> [String: String] {
        guard depth < 8 else { return [:] }
        var result: [String: String] = [:]
        for (field, type) in sections[section] ?? [] {
            let path = field == "[]" ? "[]" : Self.join(prefix, field)
            if field != "[]" { result[path] = type }
            if let open = type.firstIndex(of: "("), let close = type.lastIndex(of: ")"), open < close {
                let object = String(type[type.index(after: open)..<close])
                let below = field == "[]" ? path : (type.hasPrefix("list") ? path + "[]" : path)
                result.merge(fields(of: object, prefix: below, depth: depth + 1)) { first, _ in first }
            }
        }
        return result
    }

    /// Every key of a JSON value with its path and value: `running[].startedAt`.
    static func flatten(_ value: Any, prefix: String = "") -> [(String, Any)] {
        switch value {
        case let object as [String: Any]:
            return object.sorted { $0.key < $1.key }.flatMap { key, child in
                [(join(prefix, key), child)] + flatten(child, prefix: join(prefix, key))
            }
        case let array as [Any]:
            return array.flatMap { flatten($0, prefix: prefix + "[]") }
        default:
            return []
        }
    }

    /// What is wrong with a value of a documented type, or nil.
    static func mismatch(_ value: Any, type: String, field: String) -> String? {
        if name(of: field).hasSuffix("Seconds"), !(value is NSNumber) || value is String {
            return "a …Seconds field must be a number, not \(value)"
        }
        switch type {
        case "instant":
            guard let text = value as? String,
                  text.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#, options: .regularExpression) != nil
            else { return "an instant must be RFC 3339 UTC with milliseconds (2026-12-01T08:00:00.123Z), not \(value)" }
        case "string":
            if !(value is String) { return "documented as a string, printed as \(value)" }
        case "integer", "number", "boolean":
            if !(value is NSNumber) { return "documented as \(type), printed as \(value)" }
        default:
            if type.hasPrefix("list"), !(value is [Any]) { return "documented as a list, printed as \(value)" }
            if type.hasPrefix("object"), !(value is [String: Any]) { return "documented as an object, printed as \(value)" }
        }
        return nil
    }

    private static func join(_ prefix: String, _ key: String) -> String {
        prefix.isEmpty ? key : prefix + "." + key
    }
}
