// SPDX-License-Identifier: Apache-2.0
/// Whose daily budget a job spends (DESIGN §3, §6): the manifest that permits it, each with its
/// own `DailyBudget=` or agentd.conf's as the default.
///
/// The account rule, when several manifests permit a job (its identifier *and* its kind): the
/// most specific pattern wins — an exact identifier over any wildcard, a longer wildcard prefix
/// over a shorter one (`com.example.photos.*` over `com.example.*`); on a tie, the manifest whose
/// name sorts first (byte-wise). So one job always counts against one manifest, whatever order
/// the files were read in.
///
/// A manifest's name is its file name without `.manifest` (`com.example.photos`). Empty (no
/// manifest known, as in scheduler tests that never send `.budgetsChanged`): every job shares
/// the one account ``fallback``.
public struct BudgetAccounts: Sendable, Hashable {
    /// The account of every job when no manifest is known (the metrics label of the one
    /// agent-wide budget before per-manifest budgets).
    public static let fallback = "all"

    /// Each manifest's own `DailyBudget=` (nil: the default), by name.
    public private(set) var limits: [String: Int?] = [:]
    /// Manifest names (sorted) with their kinds, by the exact identifiers they permit.
    private var exact: [Identifier: [Permit]] = [:]
    /// Manifest names (sorted) with their kinds, by the wildcard prefix (`com.example.`).
    private var prefixes: [String: [Permit]] = [:]

    private struct Permit: Sendable, Hashable {
        var manifest: String
        var kinds: Set<JobKind>
    }

    public init() {}

    /// - Parameter manifests: every manifest in force, by name.
    public init(_ manifests: [String: Manifest]) {
        for name in manifests.keys.sorted(by: Self.precedes) {
            guard let manifest = manifests[name] else { continue }
            limits[name] = manifest.dailyBudget
            let permit = Permit(manifest: name, kinds: manifest.backgroundModes)
            for pattern in manifest.permitted {
                switch pattern {
                case .exact(let id): exact[id, default: []].append(permit)
                case .prefix(let prefix): prefixes[prefix, default: []].append(permit)
                }
            }
        }
    }

    /// The manifest name of `manifests.d/NAME.manifest`, or nil for another path.
    public static func manifestName(ofPath path: String) -> String? {
        let prefix = ConfigPath.manifestsDirectory + "/", suffix = ".manifest"
        guard path.hasPrefix(prefix), path.hasSuffix(suffix),
              path.utf8.count > prefix.utf8.count + suffix.utf8.count else { return nil }
        return String(path.dropFirst(prefix.count).dropLast(suffix.count))
    }

    /// Whether any manifest is known (else every job is in ``fallback``).
    public var isEmpty: Bool { limits.isEmpty }

    /// Every manifest name, sorted byte-wise.
    public var names: [String] { limits.keys.sorted(by: Self.precedes) }

    /// The account `id` of `kind` spends: see the rule above. ``fallback`` when no manifest
    /// permits it (only possible when none is known: the registry schedules permitted jobs only).
    /// O(length of `id`).
    public func account(for id: Identifier, kind: JobKind) -> String {
        if let permit = exact[id]?.first(where: { $0.kinds.contains(kind) }) { return permit.manifest }
        // Dot-prefixes from the longest: the first that permits the kind is the most specific.
        var raw = Substring(id.rawValue)
        while let dot = raw.lastIndex(of: ".") {
            raw = raw[..<dot]
            if let permit = prefixes[String(raw) + "."]?.first(where: { $0.kinds.contains(kind) }) {
                return permit.manifest
            }
        }
        return Self.fallback
    }

    /// Whether every job spends the same account under `other` (only limits may differ).
    public func assignsLikeThis(_ other: BudgetAccounts) -> Bool {
        exact == other.exact && prefixes == other.prefixes
    }

    /// The daily launches `account` allows: its manifest's `DailyBudget=`, else `defaultLimit`
    /// (agentd.conf's).
    public func limit(of account: String, default defaultLimit: Int) -> Int {
        (limits[account] ?? nil) ?? defaultLimit
    }

    static func precedes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }
}
