// SPDX-License-Identifier: Apache-2.0
/// `SuccessExitStatus=`: exit statuses and signals that count as success besides exit 0, as in
/// systemd.service(5) (`SuccessExitStatus=2 SIGHUP`).
public struct SuccessExitStatus: Hashable, Sendable {
    public var statuses: [Int32] = []
    public var signals: [Int32] = []

    public init(statuses: [Int32] = [], signals: [Int32] = []) {
        self.statuses = statuses
        self.signals = signals
    }

    public var isEmpty: Bool { statuses.isEmpty && signals.isEmpty }

    public func countsAsSuccess(exitStatus: Int32) -> Bool { exitStatus == 0 || statuses.contains(exitStatus) }
    public func countsAsSuccess(signal: Int32) -> Bool { signals.contains(signal) }

    /// Linux's numbers for the signals a service commonly lists.
    static let signalNumbers: [String: Int32] = [
        "SIGHUP": 1, "SIGINT": 2, "SIGQUIT": 3, "SIGABRT": 6, "SIGKILL": 9, "SIGUSR1": 10,
        "SIGSEGV": 11, "SIGUSR2": 12, "SIGPIPE": 13, "SIGALRM": 14, "SIGTERM": 15,
    ]
    /// sysexits.h's names, which systemd also takes (`SuccessExitStatus=DATAERR`).
    static let exitNames: [String: Int32] = [
        "USAGE": 64, "DATAERR": 65, "NOINPUT": 66, "NOUSER": 67, "NOHOST": 68, "UNAVAILABLE": 69,
        "SOFTWARE": 70, "OSERR": 71, "OSFILE": 72, "CANTCREAT": 73, "IOERR": 74, "TEMPFAIL": 75,
        "PROTOCOL": 76, "NOPERM": 77, "CONFIG": 78,
    ]
    static let valid = "exit statuses 0 to 255, sysexits names such as DATAERR, or signal names such as SIGHUP, separated by spaces"

    /// Adds one word; nil when it is valid, else what is wrong.
    mutating func add(_ word: String) -> String? {
        if let number = KeyReader.parseInteger(Substring(word)) {
            guard number <= 255 else { return "\(TextBytes.quoted(word)) is not an exit status (\(Self.valid))" }
            if !statuses.contains(Int32(number)) { statuses.append(Int32(number)) }
            return nil
        }
        if let status = Self.exitNames[word] {
            if !statuses.contains(status) { statuses.append(status) }
            return nil
        }
        let name = word.hasPrefix("SIG") ? word : "SIG" + word
        guard let signal = Self.signalNumbers[name] else {
            return "\(TextBytes.quoted(word)) is not an exit status or a signal (\(Self.valid))"
        }
        if !signals.contains(signal) { signals.append(signal) }
        return nil
    }
}
