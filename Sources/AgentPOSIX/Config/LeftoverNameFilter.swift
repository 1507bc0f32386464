// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// The rule that hides editor and package leftovers from the config loader (hidden files, `*~`,
/// `*.swp`, `*.swx`, `#*#`, `*.dpkg-new|old|dist|tmp`, `*.ucf-*`, `*.rpmnew|rpmsave|rpmorig`),
/// for the watcher and directory scans.
///
/// It is the core's rule (`ConfigPath.isEditorLeftover`, which decides what a path is) and its
/// POSIX regular expression, which the watcher hands to libinotifytools' event filter; a test
/// holds the two to each other under regcomp, so the filter and the loader cannot drift apart.
public enum LeftoverNameFilter {
    /// libinotifytools matches its filter against the event's full path (the watch's directory
    /// with a trailing `/`, then the entry name), so the pattern is anchored to the text after the
    /// last slash. An event about a watched directory itself ends in `/` and never matches, and a
    /// hidden component higher up (`/home/u/.config/agentd`) does not hide everything below it.
    public static let pattern = ConfigPath.leftoverRegex

    /// Whether a directory entry name is a leftover. `name` is one path component.
    public static func isLeftover(_ name: String) -> Bool { ConfigPath.isEditorLeftover(name) }
}
