// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// Issue 29 item 7: what a notification names the app by — the job's keys, else its manifest's,
/// else the desktop entry's file — and which results it offers to open.
@Suite struct AppIdentityTests {
    let facts = FakeFacts()

    @Test func aJobsOwnKeysWinKeyByKeyOverItsManifests() throws {
        var registry = ConfigRegistry(agentUID: 0, agentUserName: "root", privileged: true)
        _ = registry.update(source("manifests.d/org.example.photos.manifest", """
            [Manifest]
            PermittedIdentifiers=org.example.photos.*
            BackgroundModes=continued
            Description=Photos
            Icon=org.example.Photos
            DesktopEntry=org.example.Photos

            """), facts: facts)
        _ = registry.update(source("manifests.d/org.example.manifest",
                                   "[Manifest]\nPermittedIdentifiers=org.example.*\nBackgroundModes=continued\nDescription=Example\n"),
                            facts: facts)
        #expect(registry.diagnostics.isEmpty, "\(printed(registry.diagnostics))")
        _ = registry.update(source("jobs.d/a.job", jobText("org.example.photos.export", kind: "continued", "Icon=/opt/a.png\n")),
                            facts: facts)
        let job = try #require(registry.job(id("org.example.photos.export"))?.definition)
        let manifest = registry.governingManifest(of: job.identifier, kind: job.kind)
        #expect(manifest?.app.name == "Photos", "the most specific manifest")
        #expect(AppIdentity.of(job, manifest: manifest)
                == AppIdentity(name: "Photos", icon: "/opt/a.png", desktopEntry: "org.example.Photos"))
        #expect(AppIdentity.of(job, manifest: nil) == AppIdentity(icon: "/opt/a.png"))
    }

    @Test func desktopEntryMustBeAName() {
        let bad = parseJob(jobText("com.example.t", "DesktopEntry=org.example.Photos.desktop\n"))
        #expect(printed(bad.diagnostics).contains { $0.contains("is not a desktop entry name; write the file's name without .desktop") })
        let manifest = Manifest.parse(Array("[Manifest]\nPermittedIdentifiers=a.*\nBackgroundModes=continued\nDesktopEntry=/x/y\n".utf8),
                                      path: "manifests.d/a.manifest")
        #expect(manifest.value == nil)
        #expect(printed(manifest.diagnostics).contains { $0.contains("manifests.d/a.manifest:4: DesktopEntry:") })
        let enforced = parseJob(jobText("com.example.t", "Description=Photos\nIcon=photos\nDesktopEntry=org.example.Photos\n"))
        #expect(!printed(enforced.diagnostics).contains { $0.contains("not enforced") }, "\(printed(enforced.diagnostics))")
    }

    @Test func aDesktopFileFillsOnlyWhatIsMissing() {
        let file = DesktopEntryFile.parse("""
            # a comment
            [Desktop Entry]
            Name[de]=Fotos
            Name = Photo\\sManager
            Icon=org.example.Photos
            [Desktop Action Export]
            Name=Export
            Icon=other

            """)
        #expect(file == DesktopEntryFile(name: "Photo Manager", icon: "org.example.Photos"))
        let named = AppIdentity(name: "Mine", desktopEntry: "org.example.Photos")
        #expect(named.wantsDesktopFile)
        #expect(named.filling(from: file) == AppIdentity(name: "Mine", icon: "org.example.Photos", desktopEntry: "org.example.Photos"))
        #expect(!AppIdentity(name: "a", icon: "b", desktopEntry: "c").wantsDesktopFile)
        #expect(!AppIdentity(name: "a").wantsDesktopFile, "no entry named, nothing to read")
    }

    @Test func onlyAnAbsolutePathOrAURLIsOpenable() {
        #expect(OpenableResult("/home/ana/holiday album.zip")?.target == "/home/ana/holiday album.zip")
        #expect(OpenableResult("https://example.org/a?b=c")?.target == "https://example.org/a?b=c")
        #expect(OpenableResult("file:///tmp/x") != nil)
        #expect(OpenableResult("mailto:ana@example.org") != nil)
        for text in ["3 photos exported", "note: done", "relative/path", "-x", "http://a b", "/a\nb", "://x", "1http://x",
                     "https://", "", "javascript:alert(1)"] {
            #expect(OpenableResult(text) == nil, "\(text)")
        }
        #expect(OpenableResult(nil) == nil)
    }
}
