// SPDX-License-Identifier: Apache-2.0
import AgentPOSIX
import Glibc
import Testing
@testable import AgentSystem

private let sampleMaps = """
    55d0c0000000-55d0c0100000 r--p 00000000 fd:01 1234                       /usr/sbin/agentd
    55d0c0100000-55d0c0a00000 r-xp 00100000 fd:01 1234                       /usr/sbin/agentd
    55d0c0a00000-55d0c0a40000 rw-p 00a00000 fd:01 1234                       /usr/sbin/agentd
    55d0c1000000-55d0c1100000 rw-p 00000000 00:00 0                          [heap]
    7f0000000000-7f0000010000 rw-s 00000000 00:05 77                         /dev/shm/shared
    7f0000010000-7f0000020000 r--s 00000000 00:05 78                         /memfd:x (deleted)
    7f0000020000-7f0000030000 r-xp 00000000 fd:01 99                         /usr/lib/x86_64-linux-gnu/libc.so.6
    7f0000030000-7f0000040000 r--p 00000000 00:00 0
    7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0                          [vdso]
    """

@Test func onlyReadOnlyPrivateFileMappingsAreGivenBack() {
    let mappings = IdleMemoryTrim.readOnlyFileMappings(sampleMaps)
    #expect(mappings == [
        .init(start: 0x55d0c0000000, end: 0x55d0c0100000),
        .init(start: 0x55d0c0100000, end: 0x55d0c0a00000),
        .init(start: 0x7f0000020000, end: 0x7f0000030000),
    ])
}

/// Resident kilobytes of the mapping that starts at `start`, from /proc/self/smaps.
private func residentKiB(at start: UInt) -> Int? {
    guard let text = SmallFile.read("/proc/self/smaps", limit: 1 << 26) else { return nil }
    let prefix = String(start, radix: 16) + "-"
    var inside = false
    for line in text.split(separator: "\n") {
        if line.first?.isHexDigit == true && line.contains("-") && !line.hasPrefix("Rss") {
            inside = line.hasPrefix(prefix)
        } else if inside, line.hasPrefix("Rss:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        }
    }
    return nil
}

@Test func anIdleTrimGivesAFilesCleanPagesBackToTheKernel() throws {
    // A 4 MiB file of the test's own (the kernel reclaims file pages only of files the caller
    // could write), written and synced so that its pages are clean, then mapped and read.
    let path = "/tmp/agentd-trim-\(getpid()).bin"
    defer { unlink(path) }
    let size = 4 << 20
    let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    try #require(fd >= 0)
    defer { close(fd) }
    let block = [UInt8](repeating: 0x5a, count: 1 << 16)
    for _ in 0..<(size / block.count) {
        #expect(block.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == block.count)
    }
    #expect(fsync(fd) == 0)
    let base = try #require(mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0))
    try #require(base != MAP_FAILED)
    defer { munmap(base, size) }
    var sum = 0
    for offset in stride(from: 0, to: size, by: 4096) { sum &+= Int(base.load(fromByteOffset: offset, as: UInt8.self)) }
    #expect(sum == 0x5a * (size / 4096))
    let start = UInt(bitPattern: base)
    let before = try #require(residentKiB(at: start))
    #expect(before >= 4096 * 9 / 10, "the mapping was read: \(before) KiB resident")

    // Only this mapping is named, so the test process keeps its own code.
    let maps = "/tmp/agentd-trim-\(getpid()).maps"
    defer { unlink(maps) }
    let line = "\(String(start, radix: 16))-\(String(start + UInt(size), radix: 16)) r--p 00000000 00:00 1 \(path)\n"
    #expect(writeFile(line, to: maps))
    let outcome = IdleMemoryTrim.trim(mapsPath: maps)
    #expect(outcome.refusal == nil)
    #expect(outcome.advisedBytes == size)
    let after = try #require(residentKiB(at: start))
    #expect(after <= before / 4, "resident after the trim: \(after) KiB of \(before)")
}

private func writeFile(_ text: String, to path: String) -> Bool {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count
}
