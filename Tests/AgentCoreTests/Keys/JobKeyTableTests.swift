// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// The key table is the one list of job keys: the reader, the docs and the man page follow it.
struct JobKeyTableTests {
    static func text(_ relative: String) throws -> String {
        try #require(TestFiles.read(TestFiles.repository + "/" + relative), "cannot read \(relative)")
    }

    @Test func everyKeyHasOneRow() {
        let names = JobKeyTable.rows.map(\.name)
        #expect(Set(names).count == names.count, "a key has two rows")
        #expect(JobKeyTable.rows.allSatisfy { !$0.doc.isEmpty && !$0.defaultValue.isEmpty })
    }

    @Test func everyKeyIsDocumentedInConfigurationMd() throws {
        let docs = try Self.text("docs/configuration.md")
        let missing = JobKeyTable.rows.map(\.name).filter { !docs.contains("`\($0)=`") }
        #expect(missing.isEmpty, "docs/configuration.md does not list \(missing)")
    }

    @Test func everyKeyIsDocumentedInTheManPage() throws {
        let man = try Self.text("packaging/man/agentd.job.5")
        let missing = JobKeyTable.rows.map(\.name).filter { !man.contains("\($0)=") }
        #expect(missing.isEmpty, "agentd.job(5) does not list \(missing)")
    }

    @Test func theReaderKnowsExactlyTheTablesKeys() {
        #expect(Set(JobDefinition.scalarKeys + JobDefinition.listKeys) == Set(JobKeyTable.rows.map(\.name)))
    }

    @Test func aKeyNotEnforcedYetWarnsAndTheJobStillLoads() throws {
        for key in JobKeyTable.rows where !key.enforced {
            let value = key.name.hasPrefix("Condition") && key.name != "ConditionACPower"
                && key.name != "ConditionVirtualization" ? "/x" : Self.sample[key.name] ?? "yes"
            let result = parseJob(jobText("com.example.test", "\(key.name)=\(value)\n"))
            #expect(result.value != nil, "\(key.name)=\(value): \(printed(result.diagnostics))")
            #expect(result.diagnostics.contains { $0.severity == .warning && $0.message.contains("is not enforced yet") },
                    "\(key.name)=\(value)")
        }
    }

    static let sample: [String: String] = [
        "WorkingDirectory": "/", "EnvironmentFile": "-/etc/default/x", "SuccessExitStatus": "2",
        "AfterBoot": "5min", "OnFailure": "com.example.report", "IdleFor": "5min", "Description": "x",
        "Icon": "x", "DesktopEntry": "org.example.X", "ReadWritePaths": "/var/tmp",
        "ReadOnlyPaths": "/etc", "InaccessiblePaths": "/home", "ConditionVirtualization": "container",
    ]
}
