// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// Issue 26 item 2: each sandbox key of systemd.exec(5) as the child's mount lists.
@Suite struct SandboxPlanTests {
    struct Machine: SandboxPlan.Facts {
        var paths: Set<String> = ["/usr", "/boot", "/etc", "/home", "/root", "/tmp", "/var/tmp", "/var/tmp/x"]
        var topLevelDirectories = ["/boot", "/dev", "/etc", "/home", "/proc", "/root", "/run", "/sys", "/tmp", "/usr", "/var"]
        var canMount = true
        func exists(_ path: String) -> Bool { paths.contains(path) }
    }

    let state = "/var/lib/agentd/jobs/local.x"

    func plan(_ change: (inout JobSandbox) -> Void, on machine: Machine = Machine(),
              state: String? = nil) -> Result<SandboxPlan, SandboxPlan.Problem> {
        var keys = JobSandbox()
        change(&keys)
        return SandboxPlan.plan(keys, stateDirectory: state ?? self.state, facts: machine)
    }

    @Test func protectSystemYesAndFullMakeTheExistingSystemDirectoriesReadOnly() throws {
        let yes = try plan { $0.protectSystem = .yes }.get()
        #expect(yes.readOnlyPaths == ["/usr", "/boot"], "/efi does not exist here")
        #expect(!yes.rootReadOnly && yes.readWritePaths.isEmpty)
        #expect(try plan { $0.protectSystem = .full }.get().readOnlyPaths == ["/usr", "/boot", "/etc"])
    }

    @Test func strictMakesEverythingButTheAPIFileSystemsReadOnlyAndKeepsTheStateDirectoryWritable() throws {
        let strict = try plan {
            $0.protectSystem = .strict
            $0.readWritePaths = [SandboxPath(path: "/var/tmp/x")]
        }.get()
        #expect(strict.rootReadOnly)
        #expect(strict.readOnlyPaths == ["/boot", "/etc", "/home", "/root", "/run", "/tmp", "/usr", "/var"])
        #expect(strict.readWritePaths == [state, "/var/tmp/x"])
    }

    @Test func protectHomeAndPrivateTmp() throws {
        #expect(try plan { $0.protectHome = .yes }.get().inaccessiblePaths == ["/home", "/root"])
        #expect(try plan { $0.protectHome = .readOnly }.get().readOnlyPaths == ["/home", "/root"])
        #expect(try plan { $0.protectHome = .tmpfs }.get().emptyPaths == ["/home", "/root"])
        #expect(try plan { $0.privateTmp = true }.get().privateTmpPaths == ["/tmp", "/var/tmp"])
    }

    @Test func theStateDirectoryStaysWritableUnderAReadOnlyPathAsSystemdKeepsAStateDirectory() throws {
        let home = "/home/ann/.local/state/agentd/jobs/local.x"
        let readOnly = try plan({ $0.protectHome = .readOnly }, state: home).get()
        #expect(readOnly.readOnlyPaths == ["/home", "/root"])
        #expect(readOnly.readWritePaths == [home])
        #expect(try plan { $0.protectHome = .readOnly }.get().readWritePaths.isEmpty, "the state directory is not under /home")
    }

    @Test func aKeyThatWouldHideTheStateDirectoryIsAProblemNamingBoth() throws {
        let underTmp = "/tmp/demo/state/jobs/local.x"
        let problem = SandboxPlan.Problem(key: "PrivateTmp", reason: .hidesStateDirectory(state: underTmp, under: "/tmp"))
        #expect(throws: problem) { try plan({ $0.privateTmp = true }, state: underTmp).get() }
        #expect(problem.message.hasPrefix("PrivateTmp=: the job's state directory /tmp/demo/state/jobs/local.x lies under /tmp"))
        #expect(problem.message.contains("agentd --state-dir"))
        let underHome = "/home/ann/state/jobs/local.x"
        #expect(throws: SandboxPlan.Problem(key: "ProtectHome", reason: .hidesStateDirectory(state: underHome, under: "/home"))) {
            try plan({ $0.protectHome = .tmpfs }, state: underHome).get()
        }
        #expect(throws: SandboxPlan.Problem(key: "InaccessiblePaths", reason: .hidesStateDirectory(state: underHome, under: "/home/ann"))) {
            try plan({ $0.inaccessiblePaths = [SandboxPath(path: "/home/ann")] }, state: underHome).get()
        }
        #expect(throws: Never.self) { try plan({ $0.privateTmp = true }, state: "/tmpfoo/x").get() }
    }

    @Test func aDashPathThatDoesNotExistIsSkippedOneWithoutADashIsKeptForTheChildToName() throws {
        let paths = try plan {
            $0.readOnlyPaths = [SandboxPath(path: "/srv/a", mayBeMissing: true), SandboxPath(path: "/srv/b")]
            $0.inaccessiblePaths = [SandboxPath(path: "/etc", mayBeMissing: true)]
        }.get()
        #expect(paths.readOnlyPaths == ["/srv/b"])
        #expect(paths.inaccessiblePaths == ["/etc"])
    }

    @Test func anUnprivilegedAgentRefusesMountsByKeyButCanSetNoNewPrivileges() throws {
        var unprivileged = Machine()
        unprivileged.canMount = false
        #expect(throws: SandboxPlan.Problem(key: "ProtectSystem")) { try plan({ $0.protectSystem = .strict }, on: unprivileged).get() }
        #expect(throws: SandboxPlan.Problem(key: "PrivateNetwork")) { try plan({ $0.privateNetwork = true }, on: unprivileged).get() }
        let nnp = try plan({ $0.noNewPrivileges = true }, on: unprivileged).get()
        #expect(nnp.noNewPrivileges && nnp.readOnlyPaths.isEmpty)
        #expect(SandboxPlan.Problem(key: "ProtectSystem").message.hasPrefix("ProtectSystem=: needs a root agent"))
    }

    @Test func checkSaysAnUnprivilegedAgentCannotEnforceAMountKey() {
        let result = parseJob(jobText("com.example.test", "ProtectSystem=strict\nNoNewPrivileges=yes\n"),
                              context: unprivilegedContext)
        #expect(result.value != nil)
        #expect(result.diagnostics.filter { $0.message.contains("needs a root agent") }.map(\.message).count == 1)
        #expect(result.diagnostics.contains { $0.message.hasPrefix("ProtectSystem: needs a root agent") })
        let root = parseJob(jobText("com.example.test", "ProtectSystem=strict\n"))
        #expect(!root.diagnostics.contains { $0.message.contains("needs a root agent") || $0.message.contains("not enforced") })
    }
}
