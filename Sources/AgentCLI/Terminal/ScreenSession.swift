// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The terminal while `watch` owns it: the cursor hidden, typed keys not echoed into the view
/// (and no `^C` left behind), each frame drawn over the last one without clearing the screen in
/// between, so nothing flickers. `end()` puts everything back; it runs on Ctrl-C and SIGTERM too,
/// because those are taken by `SignalWait` rather than left to kill the process.
public final class ScreenSession {
    private let output: Int32
    private let input: Int32
    private var savedMode: termios?
    private var ended = false

    /// Takes over the terminal on `output` (keyboard settings on `input`, when it is a terminal).
    public init(output: Int32 = STDOUT_FILENO, input: Int32 = STDIN_FILENO) {
        self.output = output
        self.input = input
        var mode = termios()
        if isatty(input) == 1, tcgetattr(input, &mode) == 0 {
            savedMode = mode
        }
        takeOver()
    }

    private func takeOver() {
        if var mode = savedMode {
            mode.c_lflag &= ~tcflag_t(ECHO | ECHOCTL)
            tcsetattr(input, TCSANOW, &mode)
        }
        Terminal.write(Terminal.Escape.hideCursor + Terminal.Escape.home + Terminal.Escape.eraseScreen, to: output)
    }

    /// Ctrl-Z: gives the terminal back as it was, stops the process (SIGSTOP), and takes the
    /// terminal over again once the shell continues it (`fg`); the next `draw` repaints.
    public func suspend() {
        guard !ended else { return }
        giveBack()
        kill(getpid(), SIGSTOP)
        takeOver()
    }

    deinit {
        end()
    }

    /// Draws `lines` from the top-left corner: each line rewritten and erased to its end, then
    /// everything below erased. Lines must already fit the width (`Frame.fit`). False when the
    /// terminal is gone.
    @discardableResult
    public func draw(_ lines: [String]) -> Bool {
        var text = Terminal.Escape.home
        for (index, line) in lines.enumerated() {
            text += line + Terminal.Escape.eraseToEndOfLine
            if index < lines.count - 1 { text += "\n" }
        }
        text += Terminal.Escape.eraseBelow
        return Terminal.write(text, to: output)
    }

    /// Shows the cursor again below the last frame and restores the keyboard settings (idempotent).
    public func end() {
        guard !ended else { return }
        ended = true
        giveBack()
    }

    private func giveBack() {
        Terminal.write("\n" + Terminal.Escape.showCursor, to: output)
        if var mode = savedMode {
            tcsetattr(input, TCSANOW, &mode)
        }
    }
}
