// SPDX-License-Identifier: Apache-2.0
import AgentStore
import Foundation
import Glibc
import Synchronization
import Testing

/// DESIGN §9 against a real agentd: an unprivileged user holding a thousand connections (and
/// reconnecting whenever one is closed) plus 200 clients that ask for the whole history and never
/// read it deny the socket to nobody else — root is answered within a second, every time, and the
/// agent does not grow.
@Suite(.serialized) struct SocketAbuseTests {
    /// Runs in the prefilled history, and the log tail each carries (20 lines of 100 bytes).
    static let runCount = 5_000
    static let tail = (0..<20).map { "line \($0) " + String(repeating: "x", count: 92) }.joined(separator: "\n")

    @Test(.enabled(if: getuid() == 0, "needs root: the attacking clients run as other users"),
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
                       && FileManager.default.isExecutableFile(atPath: "/usr/bin/perl"),
                   "needs setpriv (util-linux) and perl to run clients as other users"))
    func aThousandIdleConnectionsAndTwoHundredNonReadersDoNotLockOutRoot() throws {
        raiseOpenFileLimit()
        let sandbox = try Sandbox()
        // No Interval=: the agent adds no run of its own to the history the test pages through.
        try sandbox.write("jobs.d/big.job", "[Job]\nIdentifier=local.big\nKind=processing\nExec=\(sandbox.pluginPath)\n")
        try Self.fillHistory(stateDirectory: sandbox.stateDirectory)
        let agent = try AgentProcess(sandbox: sandbox)
        defer { agent.stop() }
        // Every local user reaches the socket (0666, DESIGN §9): the limits must hold against them.
        chmod(sandbox.root, 0o755)

        // Warm up, then take the baseline: paging through 2,500 runs as root works.
        let paged = try agent.ctl("history", "--json", "--limit", "2500")
        #expect(paged.status == 0, "history failed: \(paged.stderr)")
        let ids = (try json(paged.stdout) as? [[String: Any]] ?? []).compactMap { $0["runID"] as? String }
        #expect(ids.count == 2_500)
        #expect(Set(ids).count == 2_500)
        #expect(ids.first == Self.runID(Self.runCount) && ids.last == Self.runID(Self.runCount - 2_499))
        // The table asks for pages without log tails: 2,500 rows under one header.
        let table = try agent.ctl("history", "--limit", "2500")
        #expect(table.status == 0, "history failed: \(table.stderr)")
        #expect(table.stdout.split(separator: "\n").count == 2_501)
        let pid = agent.process.processIdentifier
        let baseline = try #require(Self.residentKiB(of: pid))

        let idle = try Attacker(uid: 65_534, mode: "idle", socket: sandbox.socketPath, count: 1_000)
        defer { idle.stop() }
        try idle.waitForLine(prefix: "opened 1000")
        let refusal = try idle.waitForLine(prefix: "refused ")
        #expect(refusal.contains("uid 65534 already has 16 connections"))
        #expect(refusal.contains("\"code\":\"unavailable\""))
        // The same user's agentctl is turned away with the reason and the cure (well within the
        // 10 s before the attacker's admitted connections time out and it takes them again).
        let turnedAway = try runCommand("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups",
                                                             Binaries.agentctl, "--socket", sandbox.socketPath, "status"])
        #expect(turnedAway.status == 5)
        #expect(turnedAway.stderr.contains("uid 65534 already has 16 connections to agentd"), "stderr: \(turnedAway.stderr)")
        #expect(turnedAway.stderr.contains("close some"))
        // 200 non-readers from 13 users, 16 each at most: all of them get in, and get an answer.
        let nonReaders = (0..<13).map { index in (uid: UInt32(61_000 + index), count: index < 12 ? 16 : 8) }
        let nonReading = try nonReaders.map {
            try Attacker(uid: $0.uid, mode: "history", socket: sandbox.socketPath, count: $0.count)
        }
        defer { nonReading.forEach { $0.stop() } }

        var worst = 0.0
        var peak = baseline
        func probe() throws {
            let started = Date()
            let status = try agent.ctl("status")
            let took = Date().timeIntervalSince(started)
            #expect(status.status == 0, "status as root failed: \(status.stderr)")
            #expect(took < 1.0, "status as root took \(took) s")
            worst = max(worst, took)
            peak = max(peak, Self.residentKiB(of: pid) ?? 0)
        }
        // While the history answers are being made and sent…
        for (attacker, expected) in zip(nonReading, nonReaders) {
            try attacker.waitForLine(prefix: "answered \(expected.count) refused 0", timeout: 60)
            try probe()
        }
        // …and after, with the nonReaders still holding them and the idle user reconnecting.
        for _ in 0..<8 { try probe() }
        idle.stop()
        let reconnects = Int(try idle.waitForLine(prefix: "reconnects ").dropFirst("reconnects ".count)) ?? 0
        #expect(reconnects >= 984, "the idle user should have come back for its refused connections")
        let growthMiB = Double(peak - baseline) / 1024
        print("socket abuse: \(reconnects) reconnects; status worst \(Int(worst * 1000)) ms, RSS \(baseline) KiB → peak \(peak) KiB (+\(String(format: "%.1f", growthMiB)) MiB)")
        #expect(growthMiB < 20, "agent RSS grew by \(growthMiB) MiB")
    }

    // MARK: setup

    static func runID(_ number: Int) -> String {
        let digits = String(number)
        return "r" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    /// Writes `runCount` finished runs straight into the state database before the agent starts.
    static func fillHistory(stateDirectory: String) throws {
        try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
        let database = try Database(path: stateDirectory + "/state.db", exclusive: false)
        defer { database.close() }  // before the agent opens it, which takes it for itself
        try Migrations.apply(to: database)
        let store = RunStore(database: database)
        // All in the past, a minute apart, the last one a minute ago (a fixed start put the
        // later runs in the future, and history is ordered by start time).
        let start = Int64(Date().timeIntervalSince1970 * 1000) - Int64(runCount + 1) * 60_000
        try database.transaction {
            for number in 1...runCount {
                let started = start + Int64(number) * 60_000
                let run = StoredRun(runID: runID(number), identifier: "local.big", kind: .processing,
                                    reason: .scheduled, startedAt: started, endedAt: started + 5_000,
                                    stopReason: .success, exitStatus: 0, title: "Run \(number)", logTail: tail)
                try store.insert(run)
                try store.finish(run)
            }
        }
    }

    static func residentKiB(of pid: Int32) -> Int? {
        ProcessInspection.kibibytes("VmRSS", of: pid)
    }

    /// The attackers open a descriptor per connection; the agent raises its own limit.
    private func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}

/// A client process running as another user (setpriv), opening `count` connections to the socket.
///
/// `idle`: sends nothing; reads the refusal of a connection the agent turned away, and opens every
/// closed connection (refused or timed out) again, in rounds about 0.2 s apart ("refused LINE"
/// reports the first refusal).
/// `history`: asks on each connection for 10,000 runs and never reads; reports "answered A
/// refused R" once every connection has its answer waiting (looked at with MSG_PEEK only).
/// Closing its standard input ends it.
final class Attacker {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let lines = LogLines()

    init(uid: UInt32, mode: String, socket: String, count: Int) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(uid)", "--regid=65534", "--clear-groups",
                             "/usr/bin/perl", "-e", Self.script, mode, socket, String(count)]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        lines.follow(output)
    }

    /// Waits for a line starting with `prefix`, or fails the test.
    @discardableResult
    func waitForLine(prefix: String, timeout: Double = 30,
                     sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        if let found = lines.firstLine(until: Date().addingTimeInterval(timeout), where: { $0.hasPrefix(prefix) }) {
            return found.line
        }
        Issue.record("attacker never said \"\(prefix)\" within \(timeout) s; it said: \(lines.lines.withLock { $0 })",
                     sourceLocation: sourceLocation)
        throw POSIXError(.ETIMEDOUT)
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    static let script = #"""
    use strict; use warnings; use Socket; use IO::Handle;
    STDOUT->autoflush(1);
    my ($mode, $path, $count) = @ARGV;
    my $address = pack_sockaddr_un($path);
    sub open_one {
        socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die "socket: $!\n";
        connect($s, $address) or return undef;
        return $s;
    }
    my @socks = map { open_one() } 1..$count;
    my $opened = grep { defined } @socks;
    if ($mode eq 'history') {
        for my $s (grep { defined } @socks) { send($s, qq({"command":"history","limit":10000}\n), 0); }
    }
    print "opened $opened\n";
    my ($refusal, $reported, $reconnects, $answered, $refused, $quiet) = ('', 0, 0, 0, 0, 0);
    my %seen;
    while (1) {
        my $rin = '';
        vec($rin, fileno(STDIN), 1) = 1;
        if ($mode eq 'idle') { vec($rin, fileno($_), 1) = 1 for grep { defined } @socks; }
        my $ready = select(my $rout = $rin, undef, undef, 0.05);
        if (vec($rout, fileno(STDIN), 1)) { last unless sysread(STDIN, my $byte, 1); }
        if ($mode eq 'idle') {
            # Closed connections are opened again in rounds, after 4 quiet ticks (~0.2 s).
            $quiet = $ready ? 0 : $quiet + 1;
            my $round = $quiet >= 4;
            $quiet = 0 if $round;
            for my $i (0..$#socks) {
                if (!defined $socks[$i]) {
                    if ($round) { $socks[$i] = open_one(); $reconnects++; }
                    next;
                }
                next unless vec($rout, fileno($socks[$i]), 1);
                my $got = sysread($socks[$i], my $buffer, 4096);
                if ($got) { $refusal ||= $buffer; next; }
                close($socks[$i]);
                $socks[$i] = undef;
            }
            if ($refusal && !$reported) { print "refused ", (split /\n/, $refusal)[0], "\n"; $reported = 1; }
        } else {
            for my $i (0..$#socks) {
                next if $seen{$i} || !defined $socks[$i];
                my $peek = '';
                recv($socks[$i], $peek, 64, MSG_PEEK | MSG_DONTWAIT);
                next unless length $peek;
                $seen{$i} = 1;
                if ($peek =~ /^\{"error"/) { $refused++ } else { $answered++ }
            }
            if (keys(%seen) == $opened && !$reported) { print "answered $answered refused $refused\n"; $reported = 1; }
        }
    }
    print "reconnects $reconnects\n";
    """#
}
