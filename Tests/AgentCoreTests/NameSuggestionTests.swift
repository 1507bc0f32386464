// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

private let commands = ["status", "watch", "list", "history", "logs", "stats", "submit", "trigger"]

@Test func aShortTypoOrABeginningStillGetsADidYouMean() {
    #expect(NameSuggestion.candidates(for: "lst", among: commands) == ["list"])
    #expect(NameSuggestion.candidates(for: "jsn", among: ["json", "files"]) == ["json"])
    #expect(NameSuggestion.candidates(for: "hist", among: commands) == ["history"], "not list, one edit away")
    #expect(NameSuggestion.candidates(for: "sta", among: commands) == ["status", "stats"])
    #expect(NameSuggestion.candidates(for: "sttus", among: commands) == ["status"])
}

@Test func nothingFarOffIsSuggested() {
    #expect(NameSuggestion.candidates(for: "jsno", among: ["socket", "user", "version", "no-pager"]).isEmpty,
            "user is three edits away")
    #expect(NameSuggestion.candidates(for: "xyz", among: commands).isEmpty)
    #expect(NameSuggestion.candidates(for: "st", among: commands).isEmpty, "two letters say too little")
}
