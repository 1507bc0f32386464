// SPDX-License-Identifier: Apache-2.0
import AgentCore
import AgentSystem

/// Finds the `.desktop` file a `DesktopEntry=` names, for the app name and icon its notifications
/// show when neither `Description=` nor `Icon=` says them (``AppIdentity/filling(from:)``).
///
/// Looked up in the Desktop Entry Specification's order (`$XDG_DATA_HOME/applications`, then
/// each `$XDG_DATA_DIRS` entry's), the first file found wins. Read when a shown run starts (a
/// small local file, at most ``limit`` bytes): an app installed or updated meanwhile is seen at
/// its next run, with nothing to watch.
struct DesktopEntryLookup {
    static let limit = 64 * 1024
    let directories: [String]

    /// `app` with its missing name and icon from its desktop entry's file, when it names one
    /// that exists; else `app` as it is.
    func complete(_ app: AppIdentity) -> AppIdentity {
        guard app.wantsDesktopFile, let entry = app.desktopEntry else { return app }
        for directory in directories {
            if let text = SmallFile.read(directory + "/" + entry + ".desktop", limit: Self.limit) {
                return app.filling(from: DesktopEntryFile.parse(text))
            }
        }
        return app
    }
}
