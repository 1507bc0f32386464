// SPDX-License-Identifier: Apache-2.0
/// One directory or symbolic link that resolving a path went through, as `lstat` saw it: the
/// path as resolved so far (`/home/b/link`), and its owner and mode.
public struct PathStep: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case directory
        /// `target`: what the link says (`readlink`), relative or absolute.
        case symbolicLink(target: String)
    }

    public var path: String
    public var kind: Kind
    public var facts: FileFacts

    public init(path: String, kind: Kind, facts: FileFacts) {
        self.path = path
        self.kind = kind
        self.facts = facts
    }
}
