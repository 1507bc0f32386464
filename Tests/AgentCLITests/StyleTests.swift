// SPDX-License-Identifier: Apache-2.0
import AgentProtocol
import Glibc
import Testing
@testable import AgentCLI

/// Colour only on a terminal, never with NO_COLOR; one colour per meaning.
@Suite struct StyleTests {
    @Test func colourOnlyOnATerminal() {
        #expect(Style.decide(isTerminal: true, environment: ["TERM": "xterm-256color"]).enabled)
        #expect(!Style.decide(isTerminal: false, environment: ["TERM": "xterm-256color"]).enabled)
    }

    @Test func neverWithNO_COLOROrADumbTerminal() {
        #expect(!Style.decide(isTerminal: true, environment: ["NO_COLOR": "1"]).enabled)
        #expect(!Style.decide(isTerminal: true, environment: ["NO_COLOR": "anything"]).enabled)
        #expect(!Style.decide(isTerminal: true, environment: ["TERM": "dumb"]).enabled)
        // no-color.org: an empty NO_COLOR does not count.
        #expect(Style.decide(isTerminal: true, environment: ["NO_COLOR": ""]).enabled)
    }

    @Test func rolesHaveOneColourEach() {
        let style = Style(enabled: true)
        #expect(style.error("e") == "\u{1B}[31me\u{1B}[0m")
        #expect(style.warning("w") == "\u{1B}[33mw\u{1B}[0m")
        #expect(style.success("s") == "\u{1B}[32ms\u{1B}[0m")
        #expect(style.running("r") == "\u{1B}[36mr\u{1B}[0m")
        #expect(style.dim("d") == "\u{1B}[2md\u{1B}[0m")
        #expect(Style.plain.error("e") == "e")
    }

    @Test func stopReasonsAreColouredByOutcome() {
        #expect(Style.role(forStopReason: nil) == .running)
        #expect(Style.role(forStopReason: "success") == .success)
        #expect(Style.role(forStopReason: "expired(max-runtime)") == .warning)
        #expect(Style.role(forStopReason: "cancelled") == .warning)
        #expect(Style.role(forStopReason: "failure(exit 3)") == .error)
        #expect(Style.role(forStopReason: "crashed(signal 11)") == .error)
        #expect(Style.role(forStopReason: "spawn-failed(no such file)") == .error)
    }

    @Test func styledTextIsCutByWhatIsVisible() {
        let text = StyledText("local.export", .running) + StyledText("  r000001", .dim)
        #expect(text.width == 21)
        #expect(text.cut(to: 10).plain == "local.exp…")
        #expect(text.cut(to: 14).plain == "local.export …")
        #expect(text.cut(to: 21) == text)
        #expect(text.cut(to: 10).rendered(Style(enabled: true)) == "\u{1B}[36mlocal.exp…\u{1B}[0m")
    }

    @Test func displayWidthCountsColumns() {
        #expect(DisplayText.width("abc") == 3)
        #expect(DisplayText.width("写真") == 4)
        #expect(DisplayText.width("e\u{301}") == 1)
        #expect(DisplayText.width("…") == 1)
        #expect(DisplayText.cut("写真写真", to: 5) == "写真…")
    }
}

/// Every error agentctl prints says what to do next.
@Suite struct ErrorAdviceTests {
    /// The refusals agentd sends today (AgentDaemon/ControlHandler.swift), with their codes.
    static let agentMessages: [(ControlError.Code, String)] = [
        (.badRequest, "malformed request: expected one JSON object per line with a \"command\" field (status, list)"),
        (.accessDenied, "cancel changes the agent: run it as root or as a member of group agentd"),
        (.accessDenied, "simulate launch is for root: run it with sudo"),
        (.accessDenied, "lowpower is for root: run it with sudo"),
        (.badRequest, "lowpower needs on, off or auto (got nothing)"),
        (.badRequest, "an identifier is needed"),
        (.notFound, "no job local.x (see agentctl list)"),
        (.notPermitted, "local.x: not-permitted: no manifest permits local.x; add it (or local.*) to PermittedIdentifiers="),
        (.notFound, "local.x in jobs.d/x.job is a duplicate of jobs.d/y.job"),
        (.unavailable, "agentd is stopping"),
        (.notFound, "local.x has no live run (see agentctl status)"),
        (.unavailable, "local.x is already stopping"),
        (.unavailable, "local.x is already running as r000001 (wait for it, or agentctl cancel r000001)"),
        (.unavailable, "the state database is not open"),
        (.internal, "reading history failed: disk I/O error"),
    ]

    @Test func everyRefusalOfTheAgentEndsUpWithANextStep() {
        for (code, message) in Self.agentMessages {
            let failure = CommandFailure(ControlError(code: code, message: message), command: .cancel)
            #expect(ErrorAdvice.hasNextStep(failure.message), "\(failure.message)")
            #expect(failure.exitStatus == code.exitStatus)
        }
    }

    /// A refusal that says what to do already gets no second, generic step.
    @Test func aRefusalThatSaysWhatToDoGetsNoSecondStep() {
        let failure = CommandFailure(ControlError(code: .unavailable,
                                                  message: "local.x cannot start now (battery critical (3%)): plug in external power, then submit again"),
                                     command: .submit)
        #expect(failure.message == "local.x cannot start now (battery critical (3%)): plug in external power, then submit again")
    }

    @Test func lowpowerForANonRootCallerPassesTheAgentsRefusalOn() {
        let failure = CommandFailure(ControlError(code: .accessDenied, message: "lowpower is for root: run it with sudo"),
                                     command: .lowpower)
        #expect(failure.message == "lowpower is for root: run it with sudo")
        #expect(failure.exitStatus == 1)
    }

    @Test func messagesThatAlreadySayWhatToDoAreLeftAlone() {
        let failure = CommandFailure(ControlError(code: .notFound, message: "no job local.x (see agentctl list)"), command: .cancel)
        #expect(failure.message == "no job local.x (see agentctl list)")
    }

    @Test func aStoppingAgentGetsAdvice() {
        let failure = CommandFailure(ControlError(code: .unavailable, message: "agentd is stopping"), command: .simulateLaunch)
        #expect(failure.message == "agentd is stopping (see agentctl status, then try again)")
        #expect(failure.exitStatus == 5)
    }

    /// An agent of another version: its answer lacks what the verb asks for, and the message
    /// names the verb, the missing payload and what to do.
    @Test func anAnswerWithoutItsPayloadNamesTheVerbAndSuggestsAVersionCheck() {
        #expect {
            _ = try CommandContext.answer(to: .status, line: Array(#"{"jobs":[],"ok":true}"#.utf8))
        } throws: { error in
            guard let failure = error as? CommandFailure else { return false }
            return failure.exitStatus == 1 && !failure.agentUnreachable
                && failure.message.hasPrefix("the agent's answer to status had no status (agentctl ")
                && ErrorAdvice.hasNextStep(failure.message)
        }
        #expect {
            _ = try CommandContext.answer(to: .cancel, line: Array(#"{"error":{"code":"not-found","message":"no job x.y"},"ok":false}"#.utf8))
        } throws: { error in
            (error as? CommandFailure)?.message == "no job x.y (see agentctl list and agentctl status)"
        }
    }

    @Test func anAgentThatIsNotThereIsReportedWithWhatToDo() {
        var context = Fixture.context()
        // Nothing at the path (ENOENT), and a path that is not a socket (ECONNREFUSED).
        for path in ["/tmp/agentctl-test-nobody-\(getpid()).sock", "/etc/hostname"] {
            context.socketPath = path
            #expect {
                _ = try context.request(ControlRequest.status)
            } throws: { error in
                guard let failure = error as? CommandFailure else { return false }
                return failure.exitStatus == 5 && failure.agentUnreachable
                    && failure.message == "cannot reach agentd at \(path) (is it running? try systemctl status agentd; another agent: --socket PATH or AGENTD_SOCKET, and with sudo pass --socket, since sudo drops AGENTD_SOCKET)"
            }
        }
    }
}
