// SPDX-License-Identifier: Apache-2.0
import Glibc

/// What agentctl knows about where its output goes: a terminal or not, how wide and tall, and
/// the escape codes it uses to redraw a screen.
public enum Terminal {
    /// Whether `fd` is a terminal.
    public static func isTerminal(_ fd: Int32) -> Bool {
        isatty(fd) == 1
    }

    /// The size of the terminal on `fd`, or nil when it is not a terminal (or reports 0×0).
    public static func size(_ fd: Int32) -> (columns: Int, rows: Int)? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// The width tables are cut to: the terminal's own width; else `COLUMNS` when set (e.g. for a
    /// pipe into a pager); else nil, no limit, so `agentctl list | grep` sees whole lines.
    public static func width(fd: Int32, environment: [String: String]) -> Int? {
        if let size = size(fd) { return size.columns }
        if let text = environment["COLUMNS"], let columns = Int(text), columns > 0 { return columns }
        return nil
    }

    /// ECMA-48 control sequences used by `watch`.
    public enum Escape {
        /// Cursor to the top-left corner.
        public static let home = "\u{1B}[H"
        /// Erase from the cursor to the end of the line.
        public static let eraseToEndOfLine = "\u{1B}[K"
        /// Erase from the cursor to the end of the screen.
        public static let eraseBelow = "\u{1B}[J"
        /// Erase the whole screen.
        public static let eraseScreen = "\u{1B}[2J"
        public static let hideCursor = "\u{1B}[?25l"
        public static let showCursor = "\u{1B}[?25h"
    }

    /// Writes all of `text` to `fd`, retrying short writes and EINTR. False when the output is gone.
    @discardableResult
    public static func write(_ text: String, to fd: Int32) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }
}
