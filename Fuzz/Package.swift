// swift-tools-version: 6.0
// SPDX-License-Identifier: Apache-2.0
import Foundation
import PackageDescription

/// The libFuzzer executables (`make fuzz`, docs/testing.md): a package of its own, so neither
/// `swift build` nor `make test` in the main package ever compiles them. Each target is one
/// parser's LLVMFuzzerTestOneInput around the checks in the main package's FuzzChecks module.
///
/// A path dependency's identity is its directory's name (`main`, `wt-fuzz`…), so it is read here.
let parent = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let agentd = parent.lastPathComponent.lowercased()

let targets = ["config", "exec-line", "time-span", "calendar", "directive", "uevent", "netlink", "control"]

let package = Package(
    name: "agentd-fuzz",
    dependencies: [.package(path: "..")],
    targets: [
        .target(name: "FuzzDriver", dependencies: [.product(name: "FuzzChecks", package: agentd)],
                swiftSettings: [.swiftLanguageMode(.v6)]),
    ] + targets.map { name in
        .executableTarget(name: "fuzz-\(name)", dependencies: ["FuzzDriver"], path: "Targets/\(name)",
                          swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-parse-as-library"])])
    }
)
