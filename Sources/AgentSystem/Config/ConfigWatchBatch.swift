// SPDX-License-Identifier: Apache-2.0
/// The events of one burst, collected before they are handed to the daemon in a single call.
///
/// One write usually produces several kernel events for the same file (`IN_CREATE`,
/// `IN_CLOSE_WRITE`, `IN_ATTRIB` for `cp -p`), and the daemon should read the file once, so an
/// event that repeats the latest event already collected for the same path (or directory) is
/// dropped. A different event in between keeps both: `changed, removed, changed` stays as it is,
/// because the last event for a path is the one that must win.
struct ConfigWatchBatch {
    private(set) var events: [ConfigWatchEvent] = []
    private var latestIndex: [Key: Int] = [:]

    /// What "the same thing" means for coalescing: a file, a directory, or the overflow marker.
    private enum Key: Hashable {
        case file(String)
        case directory(String)
        case overflow
    }

    var isEmpty: Bool { events.isEmpty }

    mutating func add(_ event: ConfigWatchEvent) {
        let key: Key
        switch event {
        case .changed(let path), .removed(let path): key = .file(path)
        case .rescan(let directory): key = .directory(directory)
        case .overflow: key = .overflow
        }
        if let index = latestIndex[key], events[index] == event { return }
        latestIndex[key] = events.count
        events.append(event)
    }
}
