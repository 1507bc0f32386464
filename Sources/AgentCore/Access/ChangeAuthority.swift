// SPDX-License-Identifier: Apache-2.0
/// Who may act for an identifier on the system agent's control socket (DESIGN §3, §9): root
/// and group `agentd` everywhere; the users and groups a manifest names (`Users=`, `Groups=`)
/// and the runs of that manifest's jobs on its identifiers, for the verbs that act for an
/// identifier (request, submit, trigger, run, cancel, cancel-request) and nothing else.
///
/// "Its identifiers" are those the manifest owns by the budget rule (`BudgetAccounts`): the
/// most specific pattern permitting the identifier and its kind, so one identifier always has
/// exactly one owner, whatever other manifests a wildcard of theirs reaches.
public enum ChangeAuthority {
    /// Who granted the change, for logs and tests.
    public enum Grant: Sendable, Hashable {
        case administrator
        /// `Users=`/`Groups=` of this manifest name the peer.
        case namedBy(String)
        /// The peer is a process of a run of this manifest's jobs.
        case runOf(String)
    }

    public enum Decision: Sendable, Hashable {
        case allowed(Grant)
        /// The sentence to answer with: what was refused, who may do it instead.
        case refused(String)
    }

    /// `verb` (`request`, `cancel` …) on `target`, whose owning manifest is `owner` (nil when
    /// no manifest owns it: then only an administrator may).
    public static func decide(_ verb: String, _ target: Identifier, owner: NamedManifest?,
                              requester: Requester) -> Decision {
        if requester.isAdministrator { return .allowed(.administrator) }
        if let owner {
            if requester.runManifest == owner.name { return .allowed(.runOf(owner.name)) }
            if requester.isNamed(by: owner.manifest) { return .allowed(.namedBy(owner.name)) }
        }
        return .refused(refusal(verb, target, owner: owner, requester: requester))
    }

    /// Whether the requester may act for `target` at all (for `cancel-request --all`, which
    /// withdraws only what the caller may change).
    public static func mayAct(for owner: NamedManifest?, requester: Requester) -> Bool {
        if requester.isAdministrator { return true }
        guard let owner else { return false }
        return requester.runManifest == owner.name || requester.isNamed(by: owner.manifest)
    }

    static func refusal(_ verb: String, _ target: Identifier, owner: NamedManifest?,
                        requester: Requester) -> String {
        let who = requester.shownName
        if let run = requester.runManifest {
            let whose = owner.map { "it belongs to manifest \($0.name)" } ?? "no manifest owns it"
            return "\(verb) \(target): a run of manifest \(run) acts only for that manifest's identifiers, and "
                + "\(whose); only root, group agentd\(owner.flatMap(namedClause) ?? "") may"
        }
        guard let owner else {
            return "\(verb) \(target): no manifest owns it, so only root or group agentd may (you are \(who))"
        }
        guard let clause = namedClause(owner) else {
            return "\(verb) \(target): only root or group agentd may; manifest \(owner.name) names no Users= or "
                + "Groups= who may act for its identifiers (you are \(who))"
        }
        return "\(verb) \(target): only root, group agentd\(clause) may (you are \(who))"
    }

    /// `, or users/groups named by manifest com.example.photos (Users=alice)`.
    private static func namedClause(_ owner: NamedManifest) -> String? {
        owner.actors.map { ", or users/groups named by manifest \(owner.name) (\($0))" }
    }
}
