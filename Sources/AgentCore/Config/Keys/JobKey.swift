// SPDX-License-Identifier: Apache-2.0
/// One job key (issue 31 item 5): its name, how it is read, its default and a one-line doc, in
/// one row of `JobKeyTable`. `JobDefinition` reads a file by running every row in table order;
/// `KeyReader`'s known keys, the redaction list and the docs test all come from the table.
struct JobKey: Sendable {
    enum Shape: Sendable {
        /// The last assignment wins; an empty one means the default.
        case scalar
        /// Repeated assignments add items; an empty one empties the list.
        case list
    }

    let name: String
    let shape: Shape
    /// The default as docs/configuration.md and agentd.job(5) state it.
    let defaultValue: String
    let doc: String
    /// `Identifier=` and `Exec=` cannot be set in a drop-in script's header.
    let inDropInHeader: Bool
    /// False while the agent parses the key but does not act on it yet: a job setting it gets
    /// the warning "…is not enforced yet" (never an error: the job still loads), so it is never
    /// silently ignored. Flipped when the run code applies it.
    let enforced: Bool
    let read: @Sendable (inout JobKeyInput) -> Void

    init(_ name: String, _ shape: Shape = .scalar, default defaultValue: String, doc: String,
         inDropInHeader: Bool = true, enforced: Bool = true,
         read: @escaping @Sendable (inout JobKeyInput) -> Void)
    {
        self.name = name
        self.shape = shape
        self.defaultValue = defaultValue
        self.doc = doc
        self.inDropInHeader = inDropInHeader
        self.enforced = enforced
        self.read = read
    }

    /// Whether the file sets this key (to something other than its default's empty form).
    func isSet(in reader: KeyReader) -> Bool {
        switch shape {
        case .scalar: reader.scalar(name) != nil
        case .list: !reader.list(name).isEmpty
        }
    }

    /// The line a warning about this key points at.
    func line(in reader: KeyReader) -> Int? {
        switch shape {
        case .scalar: reader.assignment(name)?.line
        case .list: reader.list(name).first?.line
        }
    }
}

/// What a row's `read` works on: the file's assignments and diagnostics, the definition being
/// built, and what validation needs to know about the machine.
struct JobKeyInput {
    var reader: KeyReader
    var definition: JobDefinition
    let context: ConfigContext
    let facts: any SystemFacts
    /// The `[Job]` header's line, for "X= is missing"; nil in a drop-in header.
    let sectionLine: Int?
}
