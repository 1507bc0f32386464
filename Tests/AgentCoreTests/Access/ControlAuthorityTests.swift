// SPDX-License-Identifier: Apache-2.0
@testable import AgentCore
import Testing

/// DESIGN §9's rules for who may act for an identifier and who sees a job's details, as pure
/// functions of the requester, the job file and the owning manifest.
@Suite struct ControlAuthorityTests {
    private let photos = NamedManifest(name: "com.example.photos", manifest: {
        var manifest = Manifest(permitted: [.prefix("com.example.photos.")], backgroundModes: [.refresh, .continued])
        manifest.users = ["alice"]
        manifest.groups = ["photographers"]
        return manifest
    }())
    private let mail = NamedManifest(name: "com.example.mail",
                                     manifest: Manifest(permitted: [.prefix("com.example.mail.")], backgroundModes: [.refresh]))
    private let refresh = Identifier(unchecked: "com.example.photos.refresh")

    private func user(_ name: String?, uid: UInt32 = 1001, groups: Set<String> = [], run: String? = nil) -> Requester {
        Requester(isAdministrator: false, identity: UserIdentity(uid: uid, groups: [uid]), userName: name,
                  groupNames: groups, runManifest: run)
    }

    @Test func aUserNamedByTheManifestActsForItsIdentifiers() {
        #expect(ChangeAuthority.decide("request", refresh, owner: photos, requester: user("alice"))
            == .allowed(.namedBy("com.example.photos")))
        #expect(ChangeAuthority.decide("trigger", refresh, owner: photos, requester: user("carol", groups: ["photographers"]))
            == .allowed(.namedBy("com.example.photos")))
    }

    @Test func anUnlistedUserIsToldWhoMayInstead() {
        let decision = ChangeAuthority.decide("cancel", refresh, owner: photos, requester: user("bob"))
        #expect(decision == .refused("cancel com.example.photos.refresh: only root, group agentd, or users/groups named by "
            + "manifest com.example.photos (Users=alice Groups=photographers) may (you are uid 1001 (bob))"))
    }

    @Test func aManifestThatNamesNobodyLeavesItToRootAndGroupAgentd() {
        let decision = ChangeAuthority.decide("request", Identifier(unchecked: "com.example.mail.sync"), owner: mail,
                                              requester: user("alice"))
        guard case .refused(let why) = decision else { Issue.record("allowed: \(decision)"); return }
        #expect(why.contains("only root or group agentd may; manifest com.example.mail names no Users= or Groups="))
        #expect(!why.contains("join"))
    }

    @Test func aRunActsForItsOwnManifestOnlyWhoeverItRunsAs() {
        #expect(ChangeAuthority.decide("request", refresh, owner: photos, requester: user("nobody", uid: 65534, run: "com.example.photos"))
            == .allowed(.runOf("com.example.photos")))
        let other = ChangeAuthority.decide("request", Identifier(unchecked: "com.example.mail.sync"), owner: mail,
                                           requester: user("nobody", uid: 65534, run: "com.example.photos"))
        guard case .refused(let why) = other else { Issue.record("allowed: \(other)"); return }
        #expect(why.hasPrefix("request com.example.mail.sync: a run of manifest com.example.photos acts only for that manifest's identifiers, and it belongs to manifest com.example.mail"))
    }

    @Test func administratorsActEverywhereAndNoOneElseWhereNoManifestOwns() {
        let admin = Requester(isAdministrator: true, identity: UserIdentity(uid: 0, groups: [0]))
        #expect(ChangeAuthority.decide("request", refresh, owner: nil, requester: admin) == .allowed(.administrator))
        #expect(!ChangeAuthority.mayAct(for: nil, requester: user("alice")))
        #expect(ChangeAuthority.mayAct(for: photos, requester: user("alice")))
        #expect(!ChangeAuthority.mayAct(for: mail, requester: user("alice")))
    }

    @Test func aReaderSeesDetailsOfJobsWhoseFileTheyCouldRead() {
        let bob = user("bob", uid: 1002)
        let worldReadable = JobFileFacts(facts: FileFacts(ownerUID: 0, mode: 0o100644, groupID: 0))
        let rootOnly = JobFileFacts(facts: FileFacts(ownerUID: 0, mode: 0o100600, groupID: 0))
        let groupOnly = JobFileFacts(facts: FileFacts(ownerUID: 0, mode: 0o100640, groupID: 1002))
        #expect(DetailVisibility.seesDetails(bob, file: worldReadable, owner: mail))
        #expect(!DetailVisibility.seesDetails(bob, file: rootOnly, owner: mail))
        #expect(DetailVisibility.seesDetails(bob, file: groupOnly, owner: mail), "bob's primary group 1002 may read it")
        #expect(!DetailVisibility.seesDetails(bob, file: nil, owner: mail), "no file: nothing to read")
        #expect(DetailVisibility.seesDetails(user("alice"), file: rootOnly, owner: photos), "named by the manifest")
        let linkedIntoPrivate = JobFileFacts(facts: FileFacts(ownerUID: 0, mode: 0o100644), reachableByEveryone: false)
        #expect(!DetailVisibility.seesDetails(bob, file: linkedIntoPrivate, owner: mail))
    }

    @Test func theOwnerBitsApplyToTheOwnerEvenWhenOthersMayRead() {
        // As the kernel: owner class first, so 0o044 keeps the owner out.
        let file = JobFileFacts(facts: FileFacts(ownerUID: 1002, mode: 0o100044))
        #expect(!file.isReadable(by: UserIdentity(uid: 1002, groups: [1002])))
        #expect(file.isReadable(by: UserIdentity(uid: 1003, groups: [1003])))
    }

    @Test func aProcessIsRecognisedByItsRunCgroupOnV1AndV2() {
        let text = """
            12:pids:/agentd-runs.4242/run-r000007
            9:name=systemd:/
            4:memory:/process_api/54e0
            0::/agentd-runs.4242/run-r000007

            """
        let membership = RunCgroupMembership(procCgroup: text)
        #expect(membership.claims.map(\.run) == [RunID(7)], "v1 and v2 name the same path: one claim")
        let unified = membership.run { $0 == RunID(7) ? ["/sys/fs/cgroup/unified/agentd-runs.4242/run-r000007"] : [] }
        #expect(unified == RunID(7))
        // A cgroup of the same name elsewhere is not the run's.
        #expect(membership.run { _ in ["/sys/fs/cgroup/unified/other/run-r000007"] } == nil)
        #expect(RunCgroupMembership(procCgroup: "0::/user.slice/run-r000007x\n").claims.isEmpty)
    }

    @Test func theOwningManifestIsTheMostSpecificAsForBudgets() {
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        _ = registry.update(source("manifests.d/com.example.manifest",
                                   "[Manifest]\nPermittedIdentifiers=com.example.*\nBackgroundModes=refresh\nUsers=root\n"),
                            facts: FakeFacts())
        _ = registry.update(source("manifests.d/photos.manifest",
                                   "[Manifest]\nPermittedIdentifiers=com.example.photos.*\nBackgroundModes=refresh\nUsers=alice\n"),
                            facts: FakeFacts())
        #expect(registry.owningManifest(of: refresh, kind: .refresh)?.name == "photos")
        #expect(registry.owningManifest(of: Identifier(unchecked: "com.example.mail.sync"), kind: .refresh)?.name == "com.example")
        #expect(registry.owningManifest(of: refresh, kind: .processing) == nil, "no manifest permits that kind")
    }

    @Test func theRegistryKeepsEachJobFilesOwnerGroupAndMode() {
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        _ = registry.update(source("manifests.d/local.manifest", "[Manifest]\nPermittedIdentifiers=local.*\nBackgroundModes=processing\n"),
                            facts: FakeFacts())
        let job = "[Job]\nIdentifier=local.x\nKind=processing\nExec=/usr/lib/agentd/plugins/x\n"
        _ = registry.update(source("jobs.d/x.job", job, facts: FileFacts(ownerUID: 0, mode: 0o100640, groupID: 27)), facts: FakeFacts())
        #expect(registry.job(Identifier(unchecked: "local.x"))?.file == JobFileFacts(facts: FileFacts(ownerUID: 0, mode: 0o100640, groupID: 27)))
        // A chmod is a new read of the same file: its facts follow.
        _ = registry.update(source("jobs.d/x.job", job, facts: FileFacts(ownerUID: 0, mode: 0o100644, groupID: 27)), facts: FakeFacts())
        #expect(registry.job(Identifier(unchecked: "local.x"))?.file?.facts.mode == 0o100644)
    }
}
