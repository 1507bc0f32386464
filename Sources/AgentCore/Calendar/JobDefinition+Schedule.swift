// SPDX-License-Identifier: Apache-2.0
/// `Schedule=`, `Window=`, `RandomizedDelay=`, `CatchUp=` (DESIGN §3), for `.job` files and
/// drop-in headers alike.
extension JobDefinition {
    static let calendarRows: [JobKey] = [
        JobKey("Schedule", default: "none", doc: "calendar earliest begin, systemd.time(7) calendar events") { input in
            guard let assignment = input.reader.scalar("Schedule") else { return }
            switch CalendarEventParser.parse(assignment.value, zones: input.context.zones) {
            case .failure(let error):
                input.reader.error(assignment.line, "Schedule: \(error.message)")
            case .success where input.definition.kind == .continued:
                input.reader.warning(assignment.line, "Schedule: ignored for Kind=continued, which starts "
                    + "only through agentctl submit")
            case .success(let event):
                if !event.matchesSomeDate {
                    // systemd accepts such a timer and never fires it; say so where it is written.
                    input.reader.warning(assignment.line, "Schedule: \(TextBytes.quoted(assignment.value)) matches no date "
                        + "(agentctl calendar says \"never\"), so it starts nothing: the job runs only when "
                        + "requested, triggered or run; check the day of the month, weekday and year")
                }
                input.definition.schedule = event
                // A drop-in's default Interval=1d would hold a daily slot back past the next
                // one once a run is late: with Schedule= it has no interval unless it names one.
                if input.definition.isDropInScript, input.reader.assignment("Interval") == nil {
                    input.definition.interval = nil
                }
            }
        },
        JobKey("Window", .list, default: "any time", doc: "local times of day a run may start in, e.g. 01:00-06:00") { input in
            var windows: [TimeWindow] = []
            for (word, line) in input.reader.words("Window") {
                switch TimeWindow.parse(word) {
                case .failure(let error): input.reader.error(line, "Window: \(error.message)")
                case .success(let window): if !windows.contains(window) { windows.append(window) }
                }
            }
            if input.definition.kind == .continued, let first = input.reader.list("Window").first {
                input.reader.warning(first.line, "Window: ignored for Kind=continued: a person's submission starts at once")
                windows = []
            }
            input.definition.windows = windows
        },
        JobKey("RandomizedDelay", default: "0", doc: "a stable per-job offset added to each earliest begin") { input in
            input.definition.randomizedDelay = input.reader.span("RandomizedDelay", default: .zero, allowZero: true)
        },
        JobKey("CatchUp", default: "yes", doc: "a slot missed while down or asleep runs once") { input in
            input.definition.catchUp = input.reader.bool("CatchUp", default: true)
        },
    ]
}
