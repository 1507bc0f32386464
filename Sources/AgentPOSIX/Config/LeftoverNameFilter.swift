// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The rule that hides editor and package leftovers from the config loader: hidden files, `*~`,
/// `*.swp`, `*.swx`, `#*#`, `*.dpkg-new|old|dist|tmp` and `*.ucf-*`.
///
/// One POSIX extended regular expression serves both users, so they cannot drift apart: the
/// watcher hands it to libinotifytools' event filter, and directory scans test names with the
/// same compiled pattern.
public enum LeftoverNameFilter {
    /// libinotifytools matches its filter against the event's full path (the watch's directory
    /// with a trailing `/`, then the entry name), so the pattern is anchored to the text after the
    /// last slash. An event about a watched directory itself ends in `/` and never matches, and a
    /// hidden component higher up (`/home/u/.config/agentd`) does not hide everything below it.
    public static let pattern =
        #"/(\.[^/]*|[^/]*~|[^/]*\.sw[px]|#[^/]*#|[^/]*\.dpkg-(new|old|dist|tmp)|[^/]*\.ucf-[^/]*)$"#

    /// Whether a directory entry name is a leftover. `name` is one path component.
    public static func isLeftover(_ name: String) -> Bool {
        guard let compiled = compiledPattern else {
            // The pattern is a constant that compiles (a test proves it); should regcomp ever
            // refuse it, fall back to the one rule that matters most: hidden files.
            return name.hasPrefix(".")
        }
        return compiled.matches("/" + name)
    }

    private static let compiledPattern = CompiledRegex(pattern: pattern, flags: REG_EXTENDED)
}

/// A POSIX regular expression compiled once and shared by every thread.
///
/// `@unchecked Sendable` because `regex_t` is a C struct: glibc's `regexec` only reads the
/// compiled pattern and guards its internal matcher state with a lock of its own, so concurrent
/// matching against one compiled pattern is safe; nothing ever frees or recompiles it.
fileprivate final class CompiledRegex: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<regex_t>

    init?(pattern: String, flags: Int32) {
        storage = UnsafeMutablePointer<regex_t>.allocate(capacity: 1)
        // Only "does it match" is asked, so glibc can skip tracking subexpressions.
        guard regcomp(storage, pattern, flags | REG_NOSUB) == 0 else {
            storage.deallocate()
            return nil
        }
    }

    deinit {
        regfree(storage)
        storage.deallocate()
    }

    func matches(_ text: String) -> Bool {
        regexec(storage, text, 0, nil, 0) == 0
    }
}
