// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// One bad file and a fragment of the error it must produce.
struct BadInput: Sendable, CustomTestStringConvertible {
    var name: String
    var path: String
    var bytes: [UInt8]
    var fileFacts: FileFacts = rootFile
    var plugin: PluginStatus? = nil
    var context: ConfigContext = privilegedContext
    var expected: String

    var testDescription: String { name }

    init(_ name: String, _ text: String, facts: FileFacts = rootFile, plugin: PluginStatus? = nil,
         context: ConfigContext = privilegedContext, expect expected: String)
    {
        self.init(name, "jobs.d/bad.job", text, facts: facts, plugin: plugin, context: context, expect: expected)
    }

    init(_ name: String, _ path: String, _ text: String, facts: FileFacts = rootFile,
         plugin: PluginStatus? = nil, context: ConfigContext = privilegedContext, expect expected: String)
    {
        self.init(name, path, bytes: Array(text.utf8), facts: facts, plugin: plugin, context: context,
                  expect: expected)
    }

    init(_ name: String, _ path: String = "jobs.d/bad.job", bytes: [UInt8], facts: FileFacts = rootFile,
         plugin: PluginStatus? = nil, context: ConfigContext = privilegedContext, expect expected: String)
    {
        self.name = name
        self.path = path
        self.bytes = bytes
        self.fileFacts = facts
        self.plugin = plugin
        self.context = context
        self.expected = expected
    }
}

let job = "[Job]\nIdentifier=com.example.bad\nExec=/usr/lib/agentd/plugins/bad\n"
let pluginPath = "/usr/lib/agentd/plugins/bad"
let dropIn = "jobs.d/bad-script"
let script = "#!/bin/sh\n"
func withJob(_ extra: String) -> String { job + extra }
func withScript(_ extra: String) -> String { script + extra }
let longIdentifierJob: String = "[Job]\nIdentifier=" + String(repeating: "a", count: 256) + "\nExec=/usr/lib/agentd/plugins/bad\n"
let envPrefix: [UInt8] = Array(withJob("Environment=A=").utf8)
let megabyteOfX = String(repeating: "x", count: 1 << 20)
let hugeLine: String = withJob("Environment=A=") + megabyteOfX + "\n"
let halfMegabyte = String(repeating: "x", count: 600_000)
let continuedHuge: String = withJob("Environment=A=") + halfMegabyte + "\\\n" + halfMegabyte + "\n"

func makeBadInputs() -> [BadInput] {
    var list: [BadInput] = []
    // Syntax
    list.append(BadInput("truncated section header", "[Job\nIdentifier=x\n", expect: "section header \"[Job\" has no closing \"]\""))
    list.append(BadInput("binary garbage", bytes: [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0xFF, 0x00, 0x13, 0x80], expect: "config files must be UTF-8 text"))
    list.append(BadInput("binary garbage without NUL", bytes: [0xFF, 0xFE, 0x13, 0x37, 0x80], expect: "is not valid UTF-8 (byte 0xFF at column 1)"))
    list.append(BadInput("NUL byte", bytes: Array(job.utf8) + [0x00], expect: "contains a NUL byte"))
    list.append(BadInput("line over 1 MiB", hugeLine, expect: "at most 1 MiB (1048576 bytes) is allowed"))
    list.append(BadInput("continued line over 1 MiB", continuedHuge, expect: "continued line is longer than 1 MiB"))
    list.append(BadInput("invalid UTF-8", bytes: envPrefix + [0xE2, 0x82, 0x0A],
             expect: "is not valid UTF-8 (byte 0xE2 at column 15)"))
    list.append(BadInput("overlong UTF-8", bytes: envPrefix + [0xC0, 0xAF, 0x0A],
             expect: "is not valid UTF-8"))
    list.append(BadInput("line without =", withJob("Interval 1h\n"), expect: "\"Interval 1h\" is not a Key=Value assignment"))
    list.append(BadInput("key before section", "Identifier=com.example.bad\n[Job]\n", expect: "Identifier= comes before any section; put [Job] above it"))
    list.append(BadInput("empty key", withJob("=1h\n"), expect: "has no key before \"=\""))
    list.append(BadInput("empty section name", "[]\n", expect: "empty section header []"))
    list.append(BadInput("empty job file", "", expect: "has no [Job] section; a job file needs [Job] with at least Identifier= and Exec="))
    list.append(BadInput("comments only", "# nothing\n; here\n", expect: "has no [Job] section"))
    // Identifier
    list.append(BadInput("missing Identifier", "[Job]\nExec=/usr/lib/agentd/plugins/bad\n", expect: "1: Identifier= is missing; add Identifier=com.example.NAME to [Job]"))
    list.append(BadInput("empty Identifier", "[Job]\nIdentifier=\nExec=/usr/lib/agentd/plugins/bad\n", expect: "2: Identifier: is empty"))
    list.append(BadInput("identifier of 256 bytes", longIdentifierJob,
             expect: "is not an identifier: it is 256 bytes long, at most 255 are allowed"))
    list.append(BadInput("identifier with a slash", "[Job]\nIdentifier=com/example\nExec=/usr/lib/agentd/plugins/bad\n",
             expect: "Identifier: \"com/example\" is not an identifier: \"/\" is not allowed (use A-Z a-z 0-9 . _ -"))
    list.append(BadInput("identifier with a wildcard", "[Job]\nIdentifier=com.example.*\nExec=/usr/lib/agentd/plugins/bad\n",
             expect: "\"*\" is not allowed"))
    // Kind and other keywords
    list.append(BadInput("unknown kind", withJob("Kind=batch\n"), expect: "Kind: \"batch\" is not a kind (refresh, processing, continued)"))
    list.append(BadInput("comment after a value", withJob("Kind=refresh # x\n"), expect: "Kind: \"refresh # x\" is not a kind"))
    list.append(BadInput("kind in wrong case", withJob("Kind=Refresh\n"), expect: "Kind: \"Refresh\" is not a kind"))
    list.append(BadInput("unknown condition action", withJob("OnConditionLost=stop\n"), expect: "OnConditionLost: \"stop\" is not an action (expire, pause)"))
    // Spans
    list.append(BadInput("span with unknown unit", withJob("Interval=1x\n"), expect: "4: Interval: \"1x\" is not a time span (examples: 30s, 5min, 12h, 1d)"))
    list.append(BadInput("negative span", withJob("Interval=-5s\n"), expect: "Interval: \"-5s\" is not a time span"))
    list.append(BadInput("span in parsecs", withJob("MaxRuntime=5 parsecs\n"), expect: "MaxRuntime: \"5 parsecs\" is not a time span"))
    list.append(BadInput("zero interval", withJob("Interval=0\n"), expect: "Interval: must be longer than 0 (examples: 30s, 5min, 12h, 1d, or none)"))
    list.append(BadInput("zero progress timeout", withJob("ProgressTimeout=0\n"), expect: "ProgressTimeout: must be longer than 0"))
    list.append(BadInput("grace period in words", withJob("GracePeriod=soon\n"), expect: "GracePeriod: \"soon\" is not a time span"))
    list.append(BadInput("max pause in words", withJob("MaxPause=forever\n"), expect: "MaxPause: \"forever\" is not a time span"))
    // Booleans
    list.append(BadInput("bad boolean", withJob("RequiresNetwork=maybe\n"), expect: "RequiresNetwork: \"maybe\" is not a network requirement (yes, no, unmetered; also true, false, on, off, 1, 0)"))
    list.append(BadInput("boolean 2", withJob("RequiresIdle=2\n"), expect: "RequiresIdle: \"2\" is not a boolean"))
    // Exec
    list.append(BadInput("relative Exec", "[Job]\nIdentifier=com.example.bad\nExec=bin/x\n", expect: "3: Exec: \"bin/x\" is not an absolute path"))
    list.append(BadInput("empty Exec", "[Job]\nIdentifier=com.example.bad\nExec=\n", expect: "3: Exec: is empty; name the plugin by its absolute path"))
    list.append(BadInput("Exec of only quotes", "[Job]\nIdentifier=com.example.bad\nExec=\"\"\n", expect: "Exec: \"\" is not an absolute path"))
    list.append(BadInput("missing Exec", "[Job]\nIdentifier=com.example.bad\n", expect: "Exec= is missing; add Exec=/absolute/path/to/plugin to [Job]"))
    list.append(BadInput("unbalanced quote in Exec", "[Job]\nIdentifier=com.example.bad\nExec=/usr/lib/agentd/plugins/bad \"oops\n",
             expect: "Exec: unbalanced \" quote"))
    list.append(BadInput("systemd prefix in Exec", "[Job]\nIdentifier=com.example.bad\nExec=@/usr/lib/agentd/plugins/bad\n",
             expect: "Exec: starts with \"@\": of systemd's command prefixes only - (the command may fail) is supported"))
    list.append(BadInput("second command in Exec", "[Job]\nIdentifier=com.example.bad\nExec=/usr/lib/agentd/plugins/bad ; /bin/rm x\n",
             expect: "Exec: a lone ; would start a second command"))
    list.append(BadInput("unknown escape in Exec", "[Job]\nIdentifier=com.example.bad\nExec=/usr/lib/agentd/plugins/bad \\q\n",
             expect: "Exec: \\q is not a valid escape"))
    // Plugins
    list.append(BadInput("missing plugin", job, plugin: .missing, expect: "3: Exec: /usr/lib/agentd/plugins/bad does not exist"))
    list.append(BadInput("non-executable plugin", job, plugin: .present(FileFacts(ownerUID: 0, mode: 0o100644), executable: false),
             expect: "Exec: /usr/lib/agentd/plugins/bad is not executable; run chmod +x /usr/lib/agentd/plugins/bad"))
    list.append(BadInput("world-writable plugin", job, plugin: .present(FileFacts(ownerUID: 0, mode: 0o100757), executable: true),
             expect: "Exec: /usr/lib/agentd/plugins/bad is world-writable; run chmod o-w /usr/lib/agentd/plugins/bad"))
    list.append(BadInput("group-writable plugin", job, plugin: .present(FileFacts(ownerUID: 0, mode: 0o100775), executable: true),
             expect: "is group-writable; run chmod g-w /usr/lib/agentd/plugins/bad"))
    list.append(BadInput("plugin owned by another uid", job, plugin: .present(FileFacts(ownerUID: 1234, mode: 0o100755), executable: true),
             expect: "Exec: /usr/lib/agentd/plugins/bad is owned by uid 1234, not root; run chown root /usr/lib/agentd/plugins/bad"))
    list.append(BadInput("plugin symlink loop", job, plugin: .unreadable(message: "Too many levels of symbolic links"),
             expect: "Exec: /usr/lib/agentd/plugins/bad cannot be checked: Too many levels of symbolic links"))
    list.append(BadInput("plugin is a directory", job, plugin: .present(FileFacts(ownerUID: 0, mode: 0o040755), executable: true),
             expect: "Exec: /usr/lib/agentd/plugins/bad is a directory"))
    // The config file itself
    list.append(BadInput("group-writable job file", job, facts: FileFacts(ownerUID: 0, mode: 0o100664),
             expect: "jobs.d/bad.job: is group-writable; run chmod g-w /etc/agentd/jobs.d/bad.job"))
    list.append(BadInput("world-writable manifest", "manifests.d/x.manifest", localManifest, facts: FileFacts(ownerUID: 0, mode: 0o100666),
             expect: "manifests.d/x.manifest: is group- and world-writable; run chmod go-w /etc/agentd/manifests.d/x.manifest"))
    list.append(BadInput("job file owned by another uid", job, facts: FileFacts(ownerUID: 4242, mode: 0o100644),
             expect: "jobs.d/bad.job: is owned by uid 4242, not root; run chown root /etc/agentd/jobs.d/bad.job"))
    list.append(BadInput("config file that is a FIFO", job, facts: FileFacts(ownerUID: 0, mode: 0o010644),
             expect: "jobs.d/bad.job: is not a regular file"))
    // Other job keys
    list.append(BadInput("bad Retry", withJob("Retry=sometimes\n"), expect: "Retry: \"sometimes\" is not a retry policy (examples: exponential 30s 1h, fixed 5min, none)"))
    list.append(BadInput("Retry cap below initial", withJob("Retry=exponential 1h 30s\n"), expect: "Retry: the cap 30s is shorter than the initial delay 1h"))
    list.append(BadInput("Retry without cap", withJob("Retry=exponential 30s\n"), expect: "Retry: exponential takes an initial delay and a cap"))
    list.append(BadInput("Environment name starting with a digit", withJob("Environment=1X=a\n"),
             expect: "Environment: \"1X\" is not a variable name (letters, digits and _, not starting with a digit)"))
    list.append(BadInput("Environment without =", withJob("Environment=FOO\n"), expect: "Environment: \"FOO\" is not a NAME=VALUE assignment"))
    list.append(BadInput("Environment overriding the agent's variables", withJob("Environment=AGENTD_RUN_ID=1\n"),
             expect: "Environment: \"AGENTD_RUN_ID\" is set by the agent for every run; choose another name"))
    list.append(BadInput("Environment with unbalanced quote", withJob("Environment=\"A=1\n"), expect: "Environment: unbalanced \" quote"))
    list.append(BadInput("OnSuccess with a space", withJob("OnSuccess=com.example a\n"), expect: "OnSuccess: \"com.example a\" is not an identifier"))
    list.append(BadInput("OnSuccess chaining to itself", withJob("OnSuccess=com.example.bad\n"), expect: "OnSuccess: a job cannot chain to itself"))
    list.append(BadInput("unknown resource", withJob("Resources=gpu tpu\n"), expect: "Resources: \"tpu\" is not a resource (gpu)"))
    list.append(BadInput("User= for another user when unprivileged", withJob("User=photos\n"), context: unprivilegedContext,
             expect: "User: \"photos\" cannot be used: the agent runs unprivileged as alice"))
    list.append(BadInput("User= that does not exist", withJob("User=ghost\n"), expect: "User: \"ghost\" does not exist"))
    list.append(BadInput("User= with a colon", withJob("User=a:b\n"), expect: "User: \"a:b\" is not a user name"))
    // Manifests
    list.append(BadInput("wildcard in the middle", "manifests.d/x.manifest", "[Manifest]\nPermittedIdentifiers=com.*.x\nBackgroundModes=refresh\n",
             expect: "manifests.d/x.manifest:2: PermittedIdentifiers: \"com.*.x\" is not an identifier pattern: * is allowed only once, as the final .*"))
    list.append(BadInput("bare wildcard", "manifests.d/x.manifest", "[Manifest]\nPermittedIdentifiers=*\nBackgroundModes=refresh\n",
             expect: "a bare * would permit every identifier"))
    list.append(BadInput("double wildcard", "manifests.d/x.manifest", "[Manifest]\nPermittedIdentifiers=a.*.*\nBackgroundModes=refresh\n",
             expect: "\"a.*.*\" is not an identifier pattern"))
    list.append(BadInput("wildcard without dot", "manifests.d/x.manifest", "[Manifest]\nPermittedIdentifiers=a*\nBackgroundModes=refresh\n",
             expect: "* must follow a dot, as the final .* (e.g. a.*)"))
    list.append(BadInput("unknown background mode", "manifests.d/x.manifest", "[Manifest]\nPermittedIdentifiers=a.*\nBackgroundModes=fetch\n",
             expect: "BackgroundModes: \"fetch\" is not a kind (refresh, processing, continued)"))
    list.append(BadInput("manifest without section", "manifests.d/x.manifest", "PermittedIdentifiers=a.*\n",
             expect: "no [Section] header in its first 4 KiB; put [Manifest] above it"))
    list.append(BadInput("empty manifest", "manifests.d/x.manifest", "", expect: "has no [Manifest] section"))
    // agentd.conf
    list.append(BadInput("battery low over 100%", "agentd.conf", "[Agent]\nBatteryLow=120%\n",
             expect: "agentd.conf:2: BatteryLow: \"120%\" is not a percentage from 0 to 100 (examples: 20%, 20)"))
    list.append(BadInput("battery critical above low", "agentd.conf", "[Agent]\nBatteryCritical=30%\n",
             expect: "BatteryCritical: 30% is above BatteryLow (20%)"))
    list.append(BadInput("battery low below default critical", "agentd.conf", "[Agent]\nBatteryLow=3\n",
             expect: "BatteryLow: 3% is below BatteryCritical (5%)"))
    list.append(BadInput("zero concurrency", "agentd.conf", "[Agent]\nMaxConcurrent=0\n", expect: "MaxConcurrent: \"0\" is not a whole number from 1 to 1024"))
    list.append(BadInput("budget in words", "agentd.conf", "[Agent]\nDailyBudget=lots\n", expect: "DailyBudget: \"lots\" is not a whole number"))
    list.append(BadInput("negative thermal margin", "agentd.conf", "[Thermal]\nFairMargin=-1\n", expect: "FairMargin: \"-1\" is not a whole number from 0 to 100"))
    list.append(BadInput("bad trigger spacing", "agentd.conf", "[Agent]\nTriggerSpacing=1x\n", expect: "TriggerSpacing: \"1x\" is not a time span"))
    list.append(BadInput("bad deny pattern", "agentd.conf", "[Agent]\nDeny=com.*.x\n", expect: "Deny: \"com.*.x\" is not an identifier pattern"))
    list.append(BadInput("default user that does not exist", "agentd.conf", "[Agent]\nDefaultUser=ghost\n",
             expect: "DefaultUser: \"ghost\" does not exist; create the user or remove DefaultUser= to use nobody"))
    list.append(BadInput("agentd.conf key before section", "agentd.conf", "MaxConcurrent=2\n", expect: "put [Agent] above it"))
    // Drop-in scripts
    list.append(BadInput("Identifier in a drop-in header", dropIn, withScript("# agentd: Identifier=com.example.x\n"), facts: rootScript,
             expect: "jobs.d/bad-script:2: Identifier= cannot be set in a drop-in script"))
    list.append(BadInput("Exec in a drop-in header", dropIn, withScript("# agentd: Exec=/bin/true\n"), facts: rootScript,
             expect: "Exec= cannot be set in a drop-in script: the script itself is run"))
    list.append(BadInput("drop-in owned by a uid without a name", dropIn, script,
             facts: FileFacts(ownerUID: 4242, mode: 0o100755),
             expect: "is owned by uid 4242, which has no user name, and a drop-in script runs as its owner"))
    list.append(BadInput("drop-in header line over 1 MiB", dropIn,
             withScript("# agentd: Environment=A=" + megabyteOfX + "\n"), facts: rootScript,
             expect: "jobs.d/bad-script:2: the # agentd: header line is 1048600 bytes long; at most 1 MiB"))
    list.append(BadInput("bad span in a drop-in header", dropIn, withScript("# agentd: Interval=1x\n"), facts: rootScript,
             expect: "jobs.d/bad-script:2: Interval: \"1x\" is not a time span"))
    list.append(BadInput("drop-in header token without =", dropIn, withScript("# agentd: Kind=refresh daily\n"), facts: rootScript,
             expect: "\"daily\" in the # agentd: header is not a Key=Value setting (example: # agentd: Kind=refresh Interval=1h)"))
    list.append(BadInput("drop-in header value with an unquoted space", dropIn, withScript("# agentd: Schedule=Mon 03:00\n"),
             facts: rootScript,
             expect: "\"03:00\" in the # agentd: header is not a Key=Value setting; a value with spaces is quoted: Schedule=\"Mon 03:00\""))
    list.append(BadInput("long drop-in header value with an unquoted space", dropIn,
             withScript("# agentd: Environment=A=" + String(repeating: "x", count: 200) + " y\n"), facts: rootScript,
             expect: "a value with spaces is quoted: Environment=\"A=" + String(repeating: "x", count: 67) + "…\""))
    list.append(BadInput("drop-in header with unbalanced quote", dropIn, withScript("# agentd: Environment=\"A=1\n"), facts: rootScript,
             expect: "# agentd: header: unbalanced \" quote"))
    list.append(BadInput("group-writable drop-in", dropIn, script, facts: FileFacts(ownerUID: 0, mode: 0o100775),
             expect: "jobs.d/bad-script: is group-writable; run chmod g-w /etc/agentd/jobs.d/bad-script"))
    return list
}

let badInputs = makeBadInputs()

struct BadInputTests {
    @Test func thereAreAtLeastFortyDistinctBadInputs() {
        #expect(badInputs.count >= 40)
        #expect(Set(badInputs.map(\.name)).count == badInputs.count)
    }

    @Test(arguments: badInputs)
    func rejectsTheFileWithAMessageSayingWhy(_ input: BadInput) {
        var facts = FakeFacts()
        if let plugin = input.plugin { facts.plugins[pluginPath] = plugin }
        let result = ConfigCheck.check(
            ConfigSource(relativePath: input.path, bytes: input.bytes, facts: input.fileFacts),
            context: input.context, facts: facts)
        #expect(result.value == nil, "\(input.name) was accepted")
        let messages = printed(result.errors)
        #expect(messages.contains { $0.contains(input.expected) }, "\(input.name): \(messages)")
        // Every error names the file, as `path:line: message` or `path: message`.
        #expect(messages.allSatisfy { $0.hasPrefix(input.path + ":") })
    }
}
