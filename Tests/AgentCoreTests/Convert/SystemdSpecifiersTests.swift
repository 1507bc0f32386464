// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import AgentCore

/// The specifiers systemd fills in the same way everywhere are filled in at conversion, as
/// systemd.unit(5) defines them; the rest stay for the conversion to name.
@Suite struct SystemdSpecifiersTests {
    @Test func theUnitsNamesAndTheManagersDirectoriesAreFilledIn() {
        let specifiers = SystemdSpecifiers(unitName: "e2scrub@dev-sda1.service")
        #expect(specifiers.expand("%n %N %p %i %I %f") == "e2scrub@dev-sda1.service e2scrub@dev-sda1 e2scrub dev-sda1 dev/sda1 /dev/sda1")
        #expect(specifiers.expand("%t %S %C %L %E %T %V") == "/run /var/lib /var/cache /var/log /etc /tmp /var/tmp")
        #expect(SystemdSpecifiers(unitName: "logrotate.service").expand("%n %p %i|") == "logrotate.service logrotate |")
    }

    @Test func anEscapedInstanceIsUnescapedAndALiteralPercentStaysDoubled() {
        let specifiers = SystemdSpecifiers(unitName: #"backup@srv-my\x2ddata.service"#)
        #expect(specifiers.expand("%I") == "srv/my-data")
        #expect(specifiers.expand("date +%%F %i") == #"date +%%F srv-my\x2ddata"#)
        #expect(SystemdSpecifiers(unitName: #"x@50\x25.service"#).expand("%I") == "50%%", "a % in a value stays literal")
    }

    @Test func specifiersThatDependOnTheMachineOrTheMomentStayAsWritten() {
        let specifiers = SystemdSpecifiers(unitName: "foo.service")
        #expect(specifiers.expand("%h %H %u %U %b %m %Z %") == "%h %H %u %U %b %m %Z %")
    }
}
