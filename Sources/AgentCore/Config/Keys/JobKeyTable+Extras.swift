// SPDX-License-Identifier: Apache-2.0
/// Rows of boot-relative starts, failure reports, idleness and the names a notification shows.
extension JobKeyTable {
    static let extraRows: [JobKey] = [
        JobKey("AfterBoot", default: "none", doc: "due this long after boot, once per boot (systemd's OnBootSec=)") { input in
            guard input.reader.scalar("AfterBoot") != nil else { return }
            input.definition.extra.afterBoot = input.reader.span("AfterBoot", default: .zero, allowZero: true)
        },
        JobKey("OnFailure", default: "none", doc: "identifier to launch after a failure, crash, expiry or spawn failure") { input in
            input.definition.extra.onFailure = JobDefinition.readChain("OnFailure", &input)
        },
        JobKey("WakeSystem", default: "no",
               doc: "Schedule= jobs: wake a sleeping machine for the slot (CLOCK_REALTIME_ALARM)") { input in
            input.definition.extra.wakeSystem = input.reader.bool("WakeSystem", default: false)
        },
        JobKey("InhibitIdle", default: "yes for continued, else no",
               doc: "hold a logind idle block inhibitor, named with the run's title, while running") { input in
            guard input.reader.scalar("InhibitIdle") != nil else { return }
            input.definition.extra.inhibitIdle = input.reader.bool("InhibitIdle", default: false)
        },
        JobKey("OnSleep", default: "freeze for continued and OnConditionLost=pause, else expire",
               doc: "before the machine sleeps: freeze the run (thawed on resume), or expire it expired(sleep)") { input in
            guard input.reader.scalar("OnSleep") != nil else { return }
            input.definition.extra.onSleep = input.reader.keyword("OnSleep", default: SleepAction.expire,
                                                                  noun: "an action")
        },
        JobKey("IdleFor", default: "15min",
               doc: "how long every session of the seat must be idle or locked for RequiresIdle=") { input in
            input.definition.extra.idleFor = input.reader.span(
                "IdleFor", default: JobDefinition.defaultIdleFor, allowZero: false)
        },
        JobKey("Description", default: "the manifest's, else none",
               doc: "what the job does, in a few words: the app name its notifications show") { input in
            input.definition.extra.description = input.reader.scalar("Description")?.value.nonEmpty
        },
        JobKey("Icon", default: "the manifest's, else none",
               doc: "an icon name or absolute path for its notifications") { input in
            input.definition.extra.icon = input.reader.scalar("Icon")?.value.nonEmpty
        },
        JobKey("DesktopEntry", default: "the manifest's, else none",
               doc: "the app's desktop entry name (without .desktop) for its notifications") { input in
            guard let assignment = input.reader.scalar("DesktopEntry"), !assignment.value.isEmpty else { return }
            if let problem = AppIdentity.desktopEntryProblem(assignment.value) {
                input.reader.error(assignment.line, "DesktopEntry: " + problem)
                return
            }
            input.definition.extra.desktopEntry = assignment.value
        },
    ]
}
