// swift-tools-version: 6.0
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

/// agentd: a background-task agent for Linux. See DESIGN.md in ../shared and docs/.
let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "agentd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "agentd", targets: ["agentd"]),
        .executable(name: "agentctl", targets: ["agentctl"]),
        // Installed as /usr/lib/agentd/plugins/transfer (docs/transfer.md).
        .executable(name: "agentd-transfer", targets: ["agentd-transfer"]),
        // For Fuzz/Package.swift (`make fuzz`), which builds the libFuzzer executables around it.
        .library(name: "FuzzChecks", targets: ["FuzzChecks"]),
        // Apple's BackgroundTasks API for Swift apps run by agentd (DESIGN §13).
        .library(name: "BackgroundTasks", targets: ["BackgroundTasks"]),
    ],
    targets: [
        // C shims and system libraries: each wrapped by exactly one Swift module.
        .target(name: "CShim", path: "Sources/CShim"),
        .systemLibrary(name: "CInotifyTools", path: "Sources/CInotifyTools"),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        // Not a system library: agentd loads libsystemd for sd-bus on first use (dlopen) and speaks
        // sd_notify's and the journal's protocols itself, so it has no DT_NEEDED on it (issue 17).
        .target(name: "CSystemd", path: "Sources/CSystemd"),
        .systemLibrary(name: "CCurl", path: "Sources/CCurl"),
        .systemLibrary(name: "CLibCrypto", path: "Sources/CLibCrypto"),

        // Pure core: model, config syntax and validation, no I/O.
        .target(name: "AgentCore", swiftSettings: strict),
        // The agent's JSON coder: JSONEncoder's bytes and JSONDecoder's rules with the standard
        // library only, so answering a request does not page in Foundation's JSON code (issue 17).
        .target(name: "AgentJSON", swiftSettings: strict),
        // Control-socket messages and framing, shared by agentd and agentctl.
        .target(name: "AgentProtocol", dependencies: ["AgentCore", "AgentJSON"], swiftSettings: strict),
        // The Linux adapters that need nothing but libc and CShim: files, reading a config directory
        // once, the control-socket client, the monotonic clock. agentctl links this, not
        // AgentSystem, so it has no DT_NEEDED on libinotifytools or libsystemd (AgentctlLinkTests,
        // packaging/check-libraries.sh).
        .target(name: "AgentPOSIX", dependencies: ["AgentCore", "CShim"], swiftSettings: strict),
        // Linux adapters: event loop, inotify, sockets, files. Re-exports AgentPOSIX.
        .target(name: "AgentSystem", dependencies: ["AgentCore", "AgentPOSIX", "CShim", "CInotifyTools", "CSystemd"],
                swiftSettings: strict),
        // SQLite state.
        .target(name: "AgentStore", dependencies: ["AgentProtocol", "CSQLite", "CShim"], swiftSettings: strict),
        // Wiring: kernel events -> core, core -> system calls.
        .target(name: "AgentDaemon",
                dependencies: ["AgentCore", "AgentJSON", "AgentProtocol", "AgentSystem", "AgentStore"],
                swiftSettings: strict),
        .executableTarget(name: "agentd", dependencies: ["AgentDaemon"], swiftSettings: strict),
        // agentctl's command tree, parser, rendering; the executable is a thin shell around it.
        // Never AgentSystem: its inotify and sd-bus pieces would make agentctl link their libraries.
        .target(name: "AgentCLI", dependencies: ["AgentCore", "AgentProtocol", "AgentPOSIX"],
                swiftSettings: strict),
        .executableTarget(name: "agentctl", dependencies: ["AgentCLI"], swiftSettings: strict),
        // What apps link: Apple's API over the control socket. Foundation is allowed here (and
        // only here); it depends on the messages, never on the daemon.
        .target(name: "BackgroundTasks", dependencies: ["AgentCore", "AgentProtocol", "CShim"], swiftSettings: strict),
        // examples/: Apple's BackgroundTasks samples ported (docs/app-developers.md); built with
        // the tests, run under a real agentd by IntegrationTests/ExampleAppTests.
        .executableTarget(name: "colorfeed-refresh", dependencies: ["BackgroundTasks"],
                          path: "examples/ColorFeedRefresh", swiftSettings: strict),
        .executableTarget(name: "colorfeed-db-cleaning", dependencies: ["BackgroundTasks"],
                          path: "examples/DatabaseCleaning", swiftSettings: strict),
        .executableTarget(name: "photos-export", dependencies: ["BackgroundTasks"],
                          path: "examples/ContinuedExport", swiftSettings: strict),
        .executableTarget(name: "colorfeed-download", dependencies: ["BackgroundTasks"],
                          path: "examples/BackgroundDownload", swiftSettings: strict),
        // The transfer plugin: its pure parts (arguments, checkpoint, resume decision, progress
        // throttle, exit statuses) and the libcurl shell around them. It links none of the agent.
        .target(name: "TransferCore", swiftSettings: strict),
        .executableTarget(name: "agentd-transfer", dependencies: ["TransferCore", "CCurl", "CLibCrypto"],
                          swiftSettings: strict),
        // `make bench`: the scheduling core through 24 h of virtual time (bench/run.py reads it).
        .executableTarget(name: "scheduler-bench", dependencies: ["AgentCore"], path: "bench/SchedulerBench",
                          swiftSettings: strict, linkerSettings: [.linkedLibrary("m")]),
        // AgentJSON against JSONEncoder/JSONDecoder on a large `status` answer (`swift run -c release json-bench`).
        .executableTarget(name: "json-bench", dependencies: ["AgentJSON", "AgentProtocol"], path: "bench/JSONBench",
                          swiftSettings: strict),
        // An app's `submit` through the BackgroundTasks library (bench/issue32_extra.py).
        .executableTarget(name: "app-submit-bench", dependencies: ["BackgroundTasks"], path: "bench/AppSubmit",
                          swiftSettings: strict),

        // Fake /sys and /proc trees, shared by the reader tests and the integration tests.
        .target(name: "AgentTestSupport", path: "Tests/AgentTestSupport", swiftSettings: strict),

        // Golden/testdata: the golden scheduler scripts, read by #filePath (docs/testing.md).
        .testTarget(name: "AgentCoreTests", dependencies: ["AgentCore", "AgentTestSupport"], exclude: ["Golden/testdata"],
                    swiftSettings: strict),
        .testTarget(name: "AgentJSONTests", dependencies: ["AgentJSON", "AgentProtocol", "AgentCore"],
                    swiftSettings: strict),
        .testTarget(name: "AgentProtocolTests", dependencies: ["AgentProtocol"], swiftSettings: strict),
        .testTarget(name: "AgentSystemTests", dependencies: ["AgentSystem", "CShim", "AgentTestSupport"], swiftSettings: strict),
        .testTarget(name: "AgentCLITests", dependencies: ["AgentCLI"], swiftSettings: strict),
        .testTarget(name: "BackgroundTasksTests", dependencies: ["BackgroundTasks", "AgentProtocol"], swiftSettings: strict),
        .testTarget(name: "AgentDaemonTests", dependencies: ["AgentDaemon", "AgentSystem", "AgentTestSupport"], exclude: ["testdata"],
                    swiftSettings: strict),
        .testTarget(name: "AgentStoreTests", dependencies: ["AgentStore", "AgentProtocol"], swiftSettings: strict),
        .testTarget(name: "TransferCoreTests", dependencies: ["TransferCore"], swiftSettings: strict),
        // An app ported from iOS one behaviour per identifier, for IntegrationTests' launch tests
        // of the BackgroundTasks library; built with the tests, never shipped.
        .executableTarget(name: "background-tasks-probe", dependencies: ["BackgroundTasks"],
                          path: "Tests/BackgroundTasksProbe", swiftSettings: strict),
        // A power-profiles-daemon stand-in (C, sd-bus) that AgentSystemTests' D-Bus tests run on a
        // private dbus-daemon; built alongside the tests, never shipped (not a product).
        .executableTarget(name: "power-profiles-stand-in", path: "Tests/PowerProfilesStandIn",
                          linkerSettings: [.linkedLibrary("systemd")]),
        // A desktop notification server stand-in (C, sd-bus) for the user agent's notification
        // tests (IntegrationTests); records Notify/CloseNotification, invokes actions on request.
        .executableTarget(name: "notifications-stand-in", path: "Tests/NotificationsStandIn",
                          linkerSettings: [.linkedLibrary("systemd")]),
        // A NetworkManager stand-in (C, sd-bus) with only the Metered property, for the metered
        // network tests (AgentSystemTests and IntegrationTests); never shipped either.
        .executableTarget(name: "network-manager-stand-in", path: "Tests/NetworkManagerStandIn",
                          linkerSettings: [.linkedLibrary("systemd")]),
        // A systemd-logind stand-in (C, sd-bus): Inhibit (the descriptor's close is seen),
        // PrepareForSleep on command, sessions' IdleHint/LockedHint; for the sleep and idle tests.
        .executableTarget(name: "login1-stand-in", path: "Tests/LogindStandIn",
                          linkerSettings: [.linkedLibrary("systemd")]),
        // The invariants the fuzz targets check (Fuzz/), and the suite that replays their seed
        // corpora and every reproducer found (Fuzz/corpus, Fuzz/regressions) through them.
        .target(name: "FuzzChecks", dependencies: ["AgentCore", "AgentProtocol", "AgentSystem"],
                path: "Tests/FuzzChecks", swiftSettings: strict),
        .testTarget(name: "FuzzRegressionTests", dependencies: ["FuzzChecks"], swiftSettings: strict),
        // Drives the built agentd and agentctl binaries as separate processes.
        .testTarget(name: "IntegrationTests", dependencies: ["CShim", "AgentTestSupport", "AgentSystem", "AgentStore"], swiftSettings: strict),
    ]
)
