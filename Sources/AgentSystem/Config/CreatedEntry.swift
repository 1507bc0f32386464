// SPDX-License-Identifier: Apache-2.0

/// What a config entry that was just created is, as far as reading it goes.
enum CreatedEntry: Equatable, Sendable {
    /// Whole now: a symlink, a FIFO, a file nobody has open for writing (a hard link, a file
    /// linked in from `O_TMPFILE` and closed). Read it.
    case complete
    /// A file some process still has open for writing (made by open(2), or linked in from
    /// `O_TMPFILE` before its writer closed it). Reading it now would parse half a file: it is
    /// read once its writer closes it.
    case beingWritten
    /// Nothing to read: a directory, or already gone (its own event follows).
    case nothing
}
