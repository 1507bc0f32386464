// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
@testable import AgentCore

struct ConfigPathTests {
    @Test(arguments: [
        ("agentd.conf", ConfigPath.Role.agentSettings),
        ("./agentd.conf", .agentSettings),
        ("manifests.d/com.example.photos.manifest", .manifest),
        ("manifests.d//local.manifest", .manifest),
        ("jobs.d/photos-cleanup.job", .jobDefinition),
        ("jobs.d/backup", .dropInScript),
        ("jobs.d/backup.sh", .dropInScript),
    ])
    func classifiesConfigFilesByName(_ path: String, _ role: ConfigPath.Role) {
        #expect(ConfigPath.role(of: path) == role)
    }

    @Test(arguments: [
        "jobs.d/sub/x.job", "jobs.d/sub/script", "manifests.d/notes.txt", "manifests.d/a/b.manifest",
        "README", "agentd.conf.d/x", "jobs.d/.hidden.job", "jobs.d/x.job~", "jobs.d/.x.job.swp",
        "jobs.d/x.job.dpkg-new", "agentd.conf.dpkg-dist", "manifests.d/a.manifest.ucf-old",
        "jobs.d/#x.job#", "/etc/agentd/agentd.conf", "../agentd.conf", "", "jobs.d", "manifests.d",
    ])
    func ignoresEverythingElse(_ path: String) {
        guard case .ignored(let reason) = ConfigPath.role(of: path) else {
            Issue.record("\(path) was not ignored")
            return
        }
        #expect(!reason.isEmpty)
    }

    static let leftovers = [
        ".hidden", ".x.swp", "x~", "x.job~", "x.swp", "x.swx", "#x.job#", "##", "x.dpkg-new",
        "x.dpkg-old", "x.dpkg-dist", "x.dpkg-tmp", "x.ucf-dist", "x.ucf-old", "x.conf.ucf-new",
        "x.rpmnew", "x.rpmsave", "x.rpmorig",
    ]
    static let keepers = [
        "x.job", "backup", "#", "x#", "#x", "a.manifest", "x.swpx", "x.dpkg", "x.dpkg-newer", "ucf-x",
        "x~y", "agentd.conf",
    ]

    @Test(arguments: leftovers)
    func recognisesEditorAndPackageLeftovers(_ name: String) {
        #expect(ConfigPath.isEditorLeftover(name))
    }

    @Test(arguments: keepers)
    func keepsOrdinaryNames(_ name: String) {
        #expect(!ConfigPath.isEditorLeftover(name))
    }

    /// The regex must agree with `isEditorLeftover` as POSIX regcomp (what libinotifytools uses)
    /// reads it, on full paths as libinotifytools builds them (watched dir + name).
    @Test func leftoverRegexAgreesWithTheNameRuleUnderPOSIXRegcomp() throws {
        var regex = regex_t()
        #expect(regcomp(&regex, ConfigPath.leftoverRegex, REG_EXTENDED | REG_NOSUB) == 0)
        defer { regfree(&regex) }
        for name in Self.leftovers + Self.keepers {
            for directory in ["/etc/agentd/jobs.d/", "/tmp/.hidden dir/agentd/", "/x~/"] {
                let matched = regexec(&regex, directory + name, 0, nil, 0) == 0
                #expect(matched == ConfigPath.isEditorLeftover(name), "\(directory + name)")
            }
        }
        // The watched directory itself (no file name) is never a leftover.
        #expect(regexec(&regex, "/etc/agentd/.config/", 0, nil, 0) != 0)
    }
}

struct OwnershipRuleTests {
    static let refused: [(FileFacts, UInt32, String)] = [
        (FileFacts(ownerUID: 0, mode: 0o100664), 0, "is group-writable; run chmod g-w /etc/agentd/x"),
        (FileFacts(ownerUID: 0, mode: 0o100646), 0, "is world-writable; run chmod o-w /etc/agentd/x"),
        (FileFacts(ownerUID: 0, mode: 0o100666), 0, "is group- and world-writable; run chmod go-w /etc/agentd/x"),
        (FileFacts(ownerUID: 1001, mode: 0o100644), 0, "is owned by uid 1001, not root; run chown root /etc/agentd/x"),
        (FileFacts(ownerUID: 1001, mode: 0o100644), 1000,
         "is owned by uid 1001, not root or the agent's user alice (uid 1000); run chown alice /etc/agentd/x"),
    ]

    @Test(arguments: refused)
    func refusesFilesOthersCouldWrite(_ facts: FileFacts, _ agentUID: UInt32, _ message: String) {
        #expect(OwnershipRule.problem(with: facts, absolutePath: "/etc/agentd/x", agentUID: agentUID,
                                      agentUserName: "alice") == message)
    }

    static let acceptable: [(FileFacts, UInt32)] = [
        (FileFacts(ownerUID: 0, mode: 0o100644), 0),
        (FileFacts(ownerUID: 0, mode: 0o100600), 1000),
        (FileFacts(ownerUID: 1000, mode: 0o100755), 1000),
        (FileFacts(ownerUID: 0, mode: 0o101755), 0),
    ]

    @Test(arguments: acceptable)
    func acceptsFilesOwnedByRootOrTheAgent(_ facts: FileFacts, _ agentUID: UInt32) {
        #expect(OwnershipRule.problem(with: facts, absolutePath: "/x", agentUID: agentUID,
                                      agentUserName: "alice") == nil)
    }

    @Test func adviceQuotesPathsThatNeedIt() {
        let message = OwnershipRule.problem(with: FileFacts(ownerUID: 0, mode: 0o100664),
                                            absolutePath: "/etc/agent d/it's", agentUID: 0,
                                            agentUserName: "root")
        #expect(message == "is group-writable; run chmod g-w '/etc/agent d/it'\\''s'")
    }
}

struct ConfigDirectoryRuleTests {
    static let user = ConfigContext(agentUID: 1000, agentUserName: "alice", privileged: false)
    static let root = ConfigContext(agentUID: 0, agentUserName: "root", privileged: true)

    static let warned: [(UInt32, UInt32, ConfigContext, String)] = [
        (0, 0o40775, root, "is group-writable, so others can remove or rename the files in it; run chmod g-w /etc/agentd/jobs.d"),
        (0, 0o40777, root, "is group- and world-writable, so others can remove or rename the files in it; run chmod go-w /etc/agentd/jobs.d"),
        (1001, 0o40755, root, "is owned by uid 1001, who can remove or rename the files in it; run chown root /etc/agentd/jobs.d"),
        (1001, 0o40755, user, "is owned by uid 1001, who can remove or rename the files in it; run chown alice /etc/agentd/jobs.d"),
    ]

    @Test(arguments: warned)
    func aDirectoryOthersMayChangeIsAWarning(_ owner: UInt32, _ mode: UInt32, _ context: ConfigContext, _ message: String) {
        let warning = ConfigDirectoryRule.warning(facts: FileFacts(ownerUID: owner, mode: mode), relativePath: "jobs.d",
                                                  absolutePath: "/etc/agentd/jobs.d", context: context)
        #expect(warning == ConfigDiagnostic(path: "jobs.d", severity: .warning, message: message))
    }

    /// The sticky bit keeps others to their own files, which the agent refuses anyway.
    @Test(arguments: [(UInt32(0), UInt32(0o40755)), (0, 0o41777), (1000, 0o40700)])
    func aDirectoryOnlyRootOrTheAgentCanChangeIsFine(_ owner: UInt32, _ mode: UInt32) {
        #expect(ConfigDirectoryRule.warning(facts: FileFacts(ownerUID: owner, mode: mode), relativePath: "jobs.d",
                                            absolutePath: "/etc/agentd/jobs.d", context: Self.user) == nil)
    }
}
