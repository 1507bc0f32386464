// SPDX-License-Identifier: Apache-2.0
import Glibc

// Glibc's Swift module is built without _GNU_SOURCE, so these Linux flags are not visible from
// Swift, and the plugin links no C of its own to pass them through. Their values are the kernel's
// generic ones (asm-generic/fcntl.h, linux/fcntl.h), which every architecture Debian builds agentd
// for uses (alpha, parisc and sparc differ and are not among them).
#if os(Linux) && (arch(x86_64) || arch(arm64) || arch(riscv64) || arch(powerpc64le) || arch(s390x) || arch(i386) || arch(arm))
/// Opens a name as a handle for `*at` calls and fstat only; with O_NOFOLLOW, a link itself.
let O_PATH: Int32 = 0o10000000
/// Lets fstatat and friends act on the descriptor itself when the name is "".
let AT_EMPTY_PATH: Int32 = 0x1000
#else
#error("O_PATH and AT_EMPTY_PATH: check this architecture's values in asm/fcntl.h")
#endif
