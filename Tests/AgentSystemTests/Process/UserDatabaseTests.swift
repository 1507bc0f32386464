// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
@testable import AgentSystem

@Suite struct UserDatabaseTests {
    @Test func aLookupThatSaysERANGEGetsALargerBuffer() {
        var sizes: [Int] = []
        let found: Int? = UserDatabaseBuffer.lookup { _, size in
            sizes.append(size)
            return size < 20_000 ? (ERANGE, nil) : (0, size)
        }
        #expect(sizes == [1024, 4096, 16_384, 65_536])
        #expect(found == 65_536)
    }

    @Test func aLookupThatNeverFitsEndsAtOneMegabyte() {
        var calls = 0
        let found: Int? = UserDatabaseBuffer.lookup { _, _ in
            calls += 1
            return (ERANGE, nil)
        }
        #expect(found == nil)
        #expect(calls == 6) // 1 KB, 4, 16, 64, 256 KB, 1 MB
    }

    @Test func anErrorOtherThanERANGEIsNoEntry() {
        let found: Int? = UserDatabaseBuffer.lookup { _, _ in (EIO, 1) }
        #expect(found == nil)
    }

    @Test func rootAndItsGroupAreFoundInTheRealDatabase() throws {
        let root = try #require(UserAccount.lookup("root"))
        #expect(root.uid == 0)
        #expect(root.gid == 0)
        #expect(root.home == "/root")
        #expect(root.groups.contains(0))
        let group = try #require(GroupMembership.lookup("root"))
        #expect(group.gid == 0)
        #expect(group.contains(uid: 0, gid: 0))
        #expect(UserAccount.lookup("no-such-user-agentd-test") == nil)
        #expect(GroupMembership.lookup("no-such-group-agentd-test") == nil)
    }
}
