// SPDX-License-Identifier: Apache-2.0
/// What a path in the config directory is, decided from its name alone.
///
/// - `agentd.conf` — the agent's settings
/// - `manifests.d/NAME.manifest` — a manifest
/// - `jobs.d/NAME.job` — a job definition
/// - `jobs.d/NAME` (any other name) — a drop-in job script
/// - anything else, files in subdirectories of `jobs.d` or `manifests.d`, and editor or
///   package leftovers anywhere — ignored
public enum ConfigPath {
    public enum Role: Hashable, Sendable {
        case agentSettings
        case manifest
        case jobDefinition
        case dropInScript
        case ignored(reason: String)
    }

    public static let settingsFileName = "agentd.conf"
    public static let manifestsDirectory = "manifests.d"
    public static let jobsDirectory = "jobs.d"

    /// The role of `relativePath` (relative to the config directory, `/`-separated; `./` and
    /// repeated slashes are tolerated).
    public static func role(of relativePath: String) -> Role {
        guard let components = components(of: relativePath) else {
            return .ignored(reason: "not inside the config directory")
        }
        guard let name = components.last else {
            return .ignored(reason: "the config directory itself")
        }
        if isEditorLeftover(name) {
            return .ignored(reason: "an editor or package leftover")
        }
        switch components.count {
        case 1:
            if name == settingsFileName { return .agentSettings }
            if name == manifestsDirectory || name == jobsDirectory {
                return .ignored(reason: "a directory")
            }
            return .ignored(reason: "not a file agentd reads (agentd.conf, manifests.d/*.manifest, jobs.d/*)")
        case 2 where components[0] == manifestsDirectory:
            if name.hasSuffix(".manifest") { return .manifest }
            return .ignored(reason: "manifests must be named NAME.manifest")
        case 2 where components[0] == jobsDirectory:
            return name.hasSuffix(".job") ? .jobDefinition : .dropInScript
        default:
            if components[0] == jobsDirectory || components[0] == manifestsDirectory {
                return .ignored(reason: "subdirectories of \(components[0]) are not read")
            }
            return .ignored(reason: "not a file agentd reads (agentd.conf, manifests.d/*.manifest, jobs.d/*)")
        }
    }

    /// The canonical form of `relativePath` (`./jobs.d//x.job` → `jobs.d/x.job`), or nil when it
    /// leaves the config directory (absolute, or with `..`).
    public static func normalized(_ relativePath: String) -> String? {
        guard let parts = components(of: relativePath) else { return nil }
        let joined = parts.joined(separator: "/")
        // The path as given when it was normal already: the registry's key then shares the
        // loader's string instead of holding a second copy of every path.
        return joined == relativePath ? relativePath : joined
    }

    private static func components(of relativePath: String) -> [String]? {
        if relativePath.utf8.first == TextBytes.slash { return nil }
        var result: [String] = []
        for part in relativePath.utf8.split(separator: TextBytes.slash, omittingEmptySubsequences: true) {
            let component = String(decoding: part, as: UTF8.self)
            if component == "." { continue }
            if component == ".." { return nil }
            result.append(component)
        }
        return result
    }

    private static let leftoverSuffixes = [
        "~", ".swp", ".swx", ".dpkg-new", ".dpkg-old", ".dpkg-dist", ".dpkg-tmp",
        ".rpmnew", ".rpmsave", ".rpmorig",
    ]

    /// Whether a file name is an editor or package manager's leftover, never config: hidden
    /// files (`.x`), backups (`x~`), vim swap files (`*.swp`, `*.swx`), emacs autosaves
    /// (`#x#`), dpkg's `*.dpkg-new|old|dist|tmp`, ucf's `*.ucf-*` and rpm's
    /// `*.rpmnew|rpmsave|rpmorig`.
    public static func isEditorLeftover(_ fileName: String) -> Bool {
        let bytes = fileName.utf8
        guard let first = bytes.first else { return false }
        if first == TextBytes.dot { return true }
        if bytes.count >= 2, first == TextBytes.hash, bytes.last == TextBytes.hash { return true }
        if leftoverSuffixes.contains(where: { fileName.utf8.reversed().starts(with: $0.utf8.reversed()) }) {
            return true
        }
        return containsUCFMarker(Array(bytes))
    }

    private static func containsUCFMarker(_ bytes: [UInt8]) -> Bool {
        let marker = Array(".ucf-".utf8)
        guard bytes.count >= marker.count else { return false }
        for start in 0...(bytes.count - marker.count)
        where bytes[start..<(start + marker.count)].elementsEqual(marker) {
            return true
        }
        return false
    }

    /// A POSIX extended regular expression matching a full path whose last component is a
    /// leftover as `isEditorLeftover` defines it, for libinotifytools' ignore filter (which
    /// matches against the watched directory's path joined with the file name).
    public static let leftoverRegex =
        "(^|/)(\\.[^/]*|[^/]*~|#[^/]*#|[^/]*\\.(swp|swx|dpkg-(new|old|dist|tmp)|rpm(new|save|orig))"
        + "|[^/]*\\.ucf-[^/]*)$"
}
