// SPDX-License-Identifier: Apache-2.0
/// `Schedule=`, `Window=`, `RandomizedDelay=`, `CatchUp=` (DESIGN §3), for `.job` files and
/// drop-in headers alike.
extension JobDefinition {
    static func readCalendarSettings(_ reader: inout KeyReader, into definition: inout JobDefinition,
                                     zones: ZoneLookup) {
        let continued = definition.kind == .continued
        if let assignment = reader.scalar("Schedule") {
            switch CalendarEventParser.parse(assignment.value, zones: zones) {
            case .failure(let error):
                reader.error(assignment.line, "Schedule: \(error.message)")
            case .success where continued:
                reader.warning(assignment.line, "Schedule: ignored for Kind=continued, which starts "
                    + "only through agentctl submit")
            case .success(let event):
                definition.schedule = event
                // A drop-in's default Interval=1d would hold a daily slot back past the next
                // one once a run is late: with Schedule= it has no interval unless it names one.
                if definition.isDropInScript, reader.assignment("Interval") == nil {
                    definition.interval = nil
                }
            }
        }
        var windows: [TimeWindow] = []
        for (word, line) in reader.words("Window") {
            switch TimeWindow.parse(word) {
            case .failure(let error): reader.error(line, "Window: \(error.message)")
            case .success(let window): if !windows.contains(window) { windows.append(window) }
            }
        }
        if continued, let first = reader.list("Window").first {
            reader.warning(first.line, "Window: ignored for Kind=continued: a person's submission starts at once")
            windows = []
        }
        definition.windows = windows
        definition.randomizedDelay = reader.span("RandomizedDelay", default: .zero, allowZero: true)
        definition.catchUp = reader.bool("CatchUp", default: true)
    }
}
