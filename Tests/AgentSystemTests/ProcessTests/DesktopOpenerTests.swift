// SPDX-License-Identifier: Apache-2.0
import CShim
import Glibc
import Testing
@testable import AgentSystem

/// The per-user agent's `xdg-open` child, reaped through its pidfd on the loop.
struct DesktopOpenerTests {
    /// A run's end reaps every exited child that is no live run's (StrayChildren), an opener
    /// too. Its pidfd then stays readable with nothing to reap: the opener must stop watching
    /// it, or the level-triggered loop wakes for it without end.
    @Test func anOpenerReapedByARunsEndIsNoLongerWatched() throws {
        let directory = try ConfigTempDirectory()
        try ConfigFS.write(directory.at("xdg-open"), "#!/bin/sh\nexit 0\n", mode: 0o755)
        let loop = try EventLoop()
        var logged: [String] = []
        let opener = DesktopOpener(loop: loop, searchPath: directory.path, log: { logged.append($0) })
        let before = Set(StrayChildren.children())
        opener.open("/tmp/report.pdf")
        let child = try #require(StrayChildren.children().first { !before.contains($0) })
        #expect(opener.liveCount == 1)

        // Wait for its exit without reaping it, then reap it as a run's end would.
        let pidfd = cshim_pidfd_open(child)
        #expect(pidfd >= 0)
        var wake = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&wake, 1, 20_000) == 1, "xdg-open exited within 20 s")
        close(pidfd)
        #expect(StrayChildren.reap(keeping: []) >= 1)

        loop.runOnce(timeout: .seconds(5))
        #expect(opener.liveCount == 0)
        #expect(logged.isEmpty, "nothing to say about an opener whose status another reap took: \(logged)")
    }
}
