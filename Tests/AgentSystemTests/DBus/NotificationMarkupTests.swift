// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentSystem

/// Issue 28 item 12: notification bodies reached a markup-capable server raw (`<a href>`, ESC);
/// the Desktop Notifications specification's body is markup, so text is escaped for it.
@Suite struct NotificationMarkupTests {
    @Test func aBodyIsEscapedForTheServersMarkup() {
        #expect(DesktopNotification.markupEscaped("<a href=\"http://x\">click</a> & more")
                == "&lt;a href=&quot;http://x&quot;&gt;click&lt;/a&gt; &amp; more")
        #expect(DesktopNotification.markupEscaped("it's 3 > 2") == "it&#39;s 3 &gt; 2")
    }

    @Test func controlCharactersNeverReachTheScreen() {
        #expect(DesktopNotification.markupEscaped("\u{1B}[31mred\u{1B}[0m\nnext\u{7}") == "[31mred[0m\nnext")
        #expect(DesktopNotification.plain("Export\u{1B}]0;title\u{7}") == "Export]0;title")
        #expect(DesktopNotification.plain("plain") == "plain")
    }

    @Test func theNotifyArgumentsCarryTheEscapedBody() {
        let notification = DesktopNotification(summary: "Export <1>", body: "server said <503>")
        let arguments = notification.arguments(appName: "agentd", replacing: 0)
        func text(_ argument: BusArgument) -> String? {
            if case .string(let value) = argument { return value }
            return nil
        }
        #expect(text(arguments[3]) == "Export <1>", "the summary is plain text in the specification")
        #expect(text(arguments[4]) == "server said &lt;503&gt;")
    }
}

/// Issue 29 item 7: the app, its icon, the desktop-entry hint and the urgency in `Notify`.
@Suite struct NotificationAppArgumentTests {
    private func text(_ argument: BusArgument) -> String? {
        if case .string(let value) = argument { return value }
        return nil
    }

    @Test func theAppNameIconAndHintsGoWhereTheSpecificationSays() {
        let notification = DesktopNotification(summary: "Export", body: "Failed", appName: "Photos",
                                               icon: "/opt/photos/icon 1.png", desktopEntry: "org.example.Photos",
                                               urgency: .critical)
        let arguments = notification.arguments(appName: "agentd", replacing: 0)
        #expect(text(arguments[0]) == "Photos")
        #expect(text(arguments[2]) == "file:///opt/photos/icon%201.png", "an absolute path as a file URI")
        guard case .variants(let hints) = arguments[6] else {
            Issue.record("no hints")
            return
        }
        #expect(hints.contains { if $0.0 == "urgency", case .byte(2) = $0.1 { return true } else { return false } })
        #expect(hints.contains { if $0.0 == "desktop-entry", case .string("org.example.Photos") = $0.1 { return true } else { return false } })
    }

    @Test func withoutAnAppTheAgentNamesItselfWithNoIcon() {
        let arguments = DesktopNotification(summary: "s", body: "b", icon: "folder-download")
            .arguments(appName: "agentd", replacing: 7)
        #expect(text(arguments[0]) == "agentd")
        #expect(text(arguments[2]) == "folder-download", "a theme icon name as it is")
        #expect(text(DesktopNotification(summary: "s", body: "b").arguments(appName: "agentd", replacing: 0)[2]) == "")
    }
}
