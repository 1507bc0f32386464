// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// What systemd 252 makes of environment files. Every table given to `expectSystemd` holds the
/// output of systemd's own `load_env_file()`, called on the same bytes from a small C program
/// linked against Debian 12's /usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared-252.so. The rules are
/// the states of `parse_env_file_internal` in src/basic/env-file.c (PRE_KEY, KEY, PRE_VALUE,
/// VALUE, VALUE_ESCAPE, SINGLE_QUOTE_VALUE, DOUBLE_QUOTE_VALUE, DOUBLE_QUOTE_VALUE_ESCAPE,
/// COMMENT, COMMENT_ESCAPE), named on each test.
///
/// In the raw strings, `\#n`, `\#r` and `\#t` are a newline, a CR and a tab; every other `\` is a
/// backslash in the file.
struct EnvironmentFileSystemdSyntaxTests {
    /// The variables as `NAME=VALUE`, in order.
    func read(_ file: String) -> [String] {
        EnvironmentFileParser.parse(Array(file.utf8)).map { "\($0.name)=\($0.value)" }
    }

    func expectSystemd(_ table: [(file: String, systemd: [String])], sourceLocation: SourceLocation = #_sourceLocation) {
        for row in table {
            #expect(read(row.file) == row.systemd, "file: \(row.file.debugDescription)", sourceLocation: sourceLocation)
        }
    }

    @Test func theReportedFileReadsAsSystemdReadsIt() {
        expectSystemd([
            (#"E1="say \"hi\""\#nE2="C:\\dir"\#nE3=a\ b\#nE4="multi\#nline"\#nE5="x"y\#n"#,
             [#"E1=say "hi""#, #"E2=C:\dir"#, #"E3=a b"#, #"E4=multi\#nline"#, #"E5=xy"#]),
        ])
    }

    /// PRE_KEY: COMMENTS (`#;`) start a comment, WHITESPACE is skipped; a comment is only at the
    /// start of a line, never after a value (VALUE has no comment state).
    @Test func blankLinesAndLinesStartingWithHashOrSemicolonAreComments() {
        expectSystemd([
            (#"# c\#n; c\#nA=1\#n"#, [#"A=1"#]),
            (#"\#n\#n  \#n\#t# c\#n  ;c\#n\#tA=1\#n"#, [#"A=1"#]),
            (#"A=1 # not a comment\#n"#, [#"A=1 # not a comment"#]),
            (#"A=1 ; B=2\#n"#, [#"A=1 ; B=2"#]),
            (#"#A=1\#nB=2"#, [#"B=2"#]),
        ])
    }

    /// COMMENT/COMMENT_ESCAPE: in 252 a backslash in a comment swallows the next character, line
    /// end included (systemd 254 changed this; Debian 12 has 252).
    @Test func aCommentEndingInABackslashAlsoCommentsOutTheNextLine() {
        expectSystemd([
            (#"# c \\#nA=1\#nB=2\#n"#, [#"B=2"#]),
            (#"; c\\#nA=1\#nB=2\#n"#, [#"B=2"#]),
            (#"#\\\#nA=1\#n"#, [#"A=1"#]),
        ])
    }

    /// KEY: a line end before `=` drops the line; trailing blanks of the name are cut
    /// (last_key_whitespace). Names systemd's parser returns but that are not variable names
    /// (`A B`, `1A`, `A.B`) are expected empty here: systemd drops them when it loads the file
    /// for a unit (exec_context_load_environment → strv_env_clean_with_callback in
    /// src/core/execute.c), as the agent's name check does.
    @Test func blanksAroundTheNameAndEqualsSignAreIgnoredAndInvalidNamesSkipped() {
        expectSystemd([
            (#"A = 1 \#n"#, [#"A=1"#]),
            (#"A\#t=\#t1\#t\#n"#, [#"A=1"#]),
            (#"A\#n"#, []),
            (#"A"#, []),
            (#"=1\#nB=2\#n"#, [#"B=2"#]),
            (#"A B=1\#n"#, []),
            (#"1A=x\#n"#, []),
            (#"A.B=x\#n"#, []),
            (#"A==1\#n"#, [#"A==1"#]),
            (#"A=\#n"#, [#"A="#]),
            (#"A ="#, [#"A="#]),
        ])
    }

    /// PRE_VALUE skips blanks; VALUE cuts trailing blanks (last_value_whitespace); VALUE_ESCAPE
    /// keeps the next character as it is, so an escaped blank is never cut.
    @Test func anUnquotedValueIsTrimmedAndABackslashKeepsTheNextCharacter() {
        expectSystemd([
            (#"A=  lead  trail  \#n"#, [#"A=lead  trail"#]),
            (#"A=a\ b\#n"#, [#"A=a b"#]),
            (#"A=a\\b\#n"#, [#"A=a\b"#]),
            (#"A=a\ \#n"#, [#"A=a "#]),
            (#"A=  \  x\#n"#, [#"A=  x"#]),
            (#"A=x\#ty\#n"#, [#"A=x\#ty"#]),
            (#"A=1 \"#, [#"A=1 "#]),
            (#"A=\n\$x\#n"#, [#"A=n$x"#]),
        ])
    }

    /// VALUE_ESCAPE: a backslash before NEWLINE eats both and the value goes on in VALUE, blanks
    /// at the start of the next line included.
    @Test func aBackslashAtTheEndOfALineJoinsTheNextLine() {
        expectSystemd([
            (#"A=con\\#ntinued\#n"#, [#"A=continued"#]),
            (#"A=x \\#n  y\#n"#, [#"A=x   y"#]),
            (#"A=\\#nB=2\#n"#, [#"A=B=2"#]),
            (#"A=x\\#n#c\#n"#, [#"A=x#c"#]),
            (#"A=1\"#, [#"A=1"#]),
        ])
    }

    /// VALUE: only NEWLINE and `\` are special; quotes are recognised in PRE_VALUE only.
    @Test func aHashOrQuoteInsideAnUnquotedValueIsPartOfIt() {
        expectSystemd([
            (#"A=1 # c\#n"#, [#"A=1 # c"#]),
            (#"A=x"q"\#n"#, [#"A=x"q""#]),
            (#"A=it's\#n"#, [#"A=it's"#]),
            (#"A=a=b\#n"#, [#"A=a=b"#]),
        ])
    }

    /// SINGLE_QUOTE_VALUE: everything up to the next `'`, no escapes.
    @Test func aSingleQuotedValueIsLiteralAcrossLines() {
        expectSystemd([
            (#"A='lit $x \" \\ \n'\#n"#, [#"A=lit $x \" \\ \n"#]),
            (#"A='multi\#nline'\#n"#, [#"A=multi\#nline"#]),
            (#"A=''\#n"#, [#"A="#]),
            (#"A='  spaced  '\#n"#, [#"A=  spaced  "#]),
            (#"A='# c'\#n"#, [#"A=# c"#]),
        ])
    }

    /// DOUBLE_QUOTE_VALUE_ESCAPE: SHELL_NEED_ESCAPE (`"\\`$`, src/basic/escape.h) is unescaped,
    /// a backslash-newline is dropped, any other backslash is kept with its character.
    @Test func aDoubleQuotedValueKeepsOnlyTheEscapesSystemdKnows() {
        expectSystemd([
            (#"A="\"\\\`\$"\#n"#, [#"A="\`$"#]),
            (#"A="\n\t\a\'"\#n"#, [#"A=\n\t\a\'"#]),
            (#"A="join\\#nme"\#n"#, [#"A=joinme"#]),
            (#"A="multi\#nline"\#n"#, [#"A=multi\#nline"#]),
            (#"A=""\#n"#, [#"A="#]),
            (#"A="  spaced  "\#n"#, [#"A=  spaced  "#]),
            (##"A="# c ; d 'x'"\##n"##, [#"A=# c ; d 'x'"#]),
            (#"A="C:\\dir"\#n"#, [#"A=C:\dir"#]),
            (#"A="x\\"\#n"#, [#"A=x\"#]),
        ])
    }

    /// A closing quote returns to PRE_VALUE: blanks after it are skipped, and a following quote
    /// or unquoted part is appended to the same value.
    @Test func quotedAndUnquotedPartsJoin() {
        expectSystemd([
            (#"A="x"y\#n"#, [#"A=xy"#]),
            (#"A="x"y'z'w\#n"#, [#"A=xy'z'w"#]),
            (#"A= "q" \#n"#, [#"A=q"#]),
            (#"A="q" tail \#n"#, [#"A=qtail"#]),
            (#"A="a"  'b'  c  \#n"#, [#"A=abc"#]),
            (#"A="x" # c\#n"#, [#"A=x# c"#]),
            (#"A='a'\ b\#n"#, [#"A=a b"#]),
        ])
    }

    /// The end of input stores the pending value in any value state (the IN_SET after the loop).
    @Test func anUnclosedQuoteRunsToTheEndOfTheFile() {
        expectSystemd([
            (#"A="unterminated\#nB=2\#n"#, [#"A=unterminated\#nB=2\#n"#]),
            (#"A='unterminated\#nB=2"#, [#"A=unterminated\#nB=2"#]),
            (#"A="x\"#, [#"A=x"#]),
            (#"A='"#, [#"A="#]),
        ])
    }

    /// load_env_file_push replaces an earlier value (strv_env_replace_consume).
    @Test func aLaterAssignmentOfANameWins() {
        expectSystemd([
            (#"A=1\#nB=2\#nA=3\#n"#, [#"A=3"#, #"B=2"#]),
        ])
    }

    /// Where the agent departs from systemd on purpose (systemd's own results in the comments).
    @Test func crLFIsOneLineEndEvenInQuotesAndAfterABackslash() {
        #expect(read(#"A=1\#r\#nB=2\#r\#n"#) == ["A=1", "B=2"])
        #expect(read(#"A = 1 \#r\#n"#) == ["A=1"])
        #expect(read(#"A="x\#r\#ny"\#r\#n"#) == [#"A=x\#ny"#])  // systemd: x CR LF y
        #expect(read(#"A=con\\#r\#ntinued\#r\#n"#) == ["A=continued"])  // systemd: con
    }

    /// NEWLINE is `\n\r`: outside quotes a lone CR ends the line; inside quotes it is kept.
    @Test func aLoneCREndsAnUnquotedValueButStaysInAQuotedOne() {
        expectSystemd([
            (#"A=x\#ry\#nB=2\#n"#, [#"A=x"#, #"B=2"#]),
            (#"A='x\#ry'\#n"#, [#"A=x\#ry"#]),
        ])
    }

    /// systemd 252 has no `export`: it reads the name `export B`, then drops it as invalid. The
    /// agent drops the word, as the files under /etc/default that shells source have it.
    @Test func anExportBeforeTheNameIsDropped() {
        #expect(read("export B=1\n") == ["B=1"])
        #expect(read("export\tB = 2 \n") == ["B=2"])
        #expect(read("  export  B=3\n") == ["B=3"])
        // Not a prefix: a variable named export, as in systemd.
        #expect(read("export =1\nexportA=1\n") == ["export=1", "exportA=1"])
    }

    /// systemd would pass these on; the agent sets them for every run, and a file cannot override them.
    @Test func namesTheAgentSetsAreSkipped() {
        #expect(read("AGENTD_X=1\nSTATE_DIRECTORY=/x\nB=2\n") == ["B=2"])
    }
}
