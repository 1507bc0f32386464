// SPDX-License-Identifier: Apache-2.0
import AgentCore

/// A request as it travels: `command` and every verb's arguments as optional fields, so the
/// JSON line is the one agentctl has always sent (docs/json.md). Only ``ControlRequest``'s coding
/// uses it: typed on the way in, flattened on the way out.
struct ControlRequestFields: Codable, Sendable, Hashable {
    var command: ControlCommand
    var target: String?
    var limit: Int?
    /// `list`, `pending`: the first entry of the page asked for (``PageRequest``).
    var offset: Int?
    var cursor: String?
    var omitLogTails: Bool?
    var submission: SubmitFields?
    var mode: String?
    var maxAgeSeconds: Int64?
    var filter: EventFilter?
    var request: RunRequestOptions?
    var all: Bool?
    /// `cancel-request`: only the submissions made with `target` itself.
    var exact: Bool?
    @OptionalInstant<EpochMilliseconds> var since: Int64?
    @OptionalInstant<EpochMilliseconds> var until: Int64?

    init(command: ControlCommand) {
        self.command = command
    }

    /// `submission`, its strategy still a word to check.
    struct SubmitFields: Codable, Sendable, Hashable {
        var title: String?
        var subtitle: String?
        var strategy: String?
        var arguments: [String]?
        var notify: Bool?
    }
}

extension ControlRequest: Codable {
    public init(from decoder: any Decoder) throws {
        self = try ControlRequest(fields: ControlRequestFields(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try ControlRequestFields(self).encode(to: encoder)
    }

    /// The request the fields make, or `bad-request` naming what is missing or wrong.
    init(fields: ControlRequestFields) throws(ControlError) {
        let verb = fields.command.rawValue
        func needed(_ what: String) -> ControlError {
            ControlError(code: .badRequest, message: "\(verb) needs \"target\": \(what)")
        }
        func identifier() throws(ControlError) -> String {
            guard let target = fields.target else { throw needed("a job identifier") }
            return target
        }
        func cursor() throws(ControlError) -> RunCursor? {
            guard let text = fields.cursor else { return nil }
            guard let cursor = RunCursor(parsing: text) else {
                throw ControlError(code: .badRequest, message: RunCursor.problem(verb, text))
            }
            return cursor
        }
        // A page is asked for with `limit` (and `offset` after the first); without it, all.
        func page() throws(ControlError) -> PageRequest? {
            guard let limit = fields.limit else {
                guard fields.offset == nil else {
                    throw ControlError(code: .badRequest, message: "\(verb): \"offset\" needs \"limit\" (entries per page, 1 to \(PageRequest.maxLimit))")
                }
                return nil
            }
            guard limit >= 1 else {
                throw ControlError(code: .badRequest, message: "\(verb): \"limit\" must be 1 or more (got \(limit))")
            }
            let offset = fields.offset ?? 0
            guard offset >= 0 else {
                throw ControlError(code: .badRequest, message: "\(verb): \"offset\" must be 0 or more: the nextOffset of the previous answer (got \(offset))")
            }
            return PageRequest(offset: offset, limit: limit)
        }
        func identifierOrRun() throws(ControlError) -> String {
            guard let target = fields.target else { throw needed("a job identifier or a run id (r000042)") }
            return target
        }
        switch fields.command {
        case .status: self = .status
        case .list: self = .list(page: try page())
        case .pause: self = .pause
        case .resume: self = .resume
        case .resources: self = .resources
        case .metrics: self = .metrics(page: try page())
        case .history:
            self = .history(HistoryQuery(target: fields.target, limit: fields.limit, cursor: try cursor(),
                                         omitLogTails: fields.omitLogTails == true, since: fields.since,
                                         until: fields.until))
        case .cancel: self = .cancel(target: try identifierOrRun())
        case .simulateLaunch: self = .simulateLaunch(target: try identifier())
        case .simulateExpire: self = .simulateExpire(target: try identifierOrRun())
        case .pending: self = .pending(target: fields.target, page: fields.target == nil ? try page() : nil)
        case .explain: self = .explain(target: try identifier())
        case .trigger: self = .trigger(target: try identifier())
        case .enable: self = .enable(target: try identifier())
        case .disable: self = .disable(target: try identifier())
        case .run: self = .run(target: try identifier())
        case .submit:
            let target = try identifier()
            let given = fields.submission
            let word = given?.strategy ?? SubmitStrategy.queue.rawValue
            guard let strategy = SubmitStrategy(rawValue: word) else {
                throw ControlError(code: .badRequest,
                                   message: "submit: \"submission.strategy\" must be queue or fail (got \(EventFilter.shown(word)))")
            }
            self = .submit(target: target, SubmitRequest(title: given?.title, subtitle: given?.subtitle, strategy: strategy,
                                                         arguments: given?.arguments ?? [], notify: given?.notify))
        case .runIfStale:
            let target = try identifier()
            guard let seconds = fields.maxAgeSeconds, seconds >= 0 else {
                throw ControlError(code: .badRequest,
                                   message: "run-if-stale needs \"maxAgeSeconds\", 0 or more (agentctl run-if-stale --max-age, e.g. 12h)")
            }
            self = .runIfStale(target: target, maxAge: .seconds(seconds))
        case .lowpower:
            guard let word = fields.mode, let mode = LowPowerMode(rawValue: word) else {
                throw ControlError(code: .badRequest,
                                   message: "lowpower: \"mode\" must be on, off or auto (got \(fields.mode.map(EventFilter.shown) ?? "nothing"))")
            }
            self = .lowpower(mode)
        case .subscribe:
            let filter = fields.filter ?? EventFilter()
            if let problem = filter.problem {
                throw ControlError(code: .badRequest, message: "subscribe: \(problem)")
            }
            self = .subscribe(filter)
        case .request:
            self = .request(target: try identifier(), fields.request ?? RunRequestOptions())
        case .cancelRequest:
            if fields.all == true {
                self = .cancelRequest(.all)
            } else if let target = fields.target {
                self = .cancelRequest(.identifier(target, exactly: fields.exact == true))
            } else {
                throw ControlError(code: .badRequest,
                                   message: "cancel-request needs \"target\" (an identifier) or \"all\": true")
            }
        case .logs:
            guard let target = fields.target, !target.isEmpty else {
                throw needed("a job identifier or a run id (r000042)")
            }
            self = .logs(LogsQuery(target: target, limit: fields.limit, cursor: try cursor()))
        }
    }
}

extension ControlRequestFields {
    /// The line agentctl sends for `request`: only the fields its verb takes.
    init(_ typed: ControlRequest) {
        self.init(command: typed.command)
        switch typed {
        case .status, .pause, .resume, .resources:
            break
        case .metrics(let page):
            limit = page?.limit
            offset = page.map { $0.offset > 0 ? $0.offset : nil } ?? nil
        case .list(let page):
            limit = page?.limit
            offset = page.map { $0.offset > 0 ? $0.offset : nil } ?? nil
        case .history(let query):
            target = query.target
            limit = query.limit
            cursor = query.cursor?.description
            omitLogTails = query.omitLogTails ? true : nil
            since = query.since
            until = query.until
        case .cancel(let id), .simulateLaunch(let id), .simulateExpire(let id), .explain(let id), .trigger(let id),
             .enable(let id), .disable(let id), .run(let id):
            target = id
        case .pending(let id, let page):
            target = id
            limit = page?.limit
            offset = page.map { $0.offset > 0 ? $0.offset : nil } ?? nil
        case .submit(let id, let details):
            target = id
            submission = SubmitFields(title: details.title, subtitle: details.subtitle,
                                      strategy: details.strategy.rawValue, arguments: details.arguments,
                                      notify: details.notify)
        case .runIfStale(let id, let maxAge):
            target = id
            maxAgeSeconds = maxAge.components.seconds
        case .lowpower(let mode):
            self.mode = mode.rawValue
        case .subscribe(let filter):
            self.filter = filter
        case .request(let id, let options):
            target = id
            request = options
        case .cancelRequest(.all):
            all = true
        case .cancelRequest(.identifier(let id, let exactly)):
            target = id
            exact = exactly ? true : nil
        case .logs(let query):
            target = query.target
            limit = query.limit
            cursor = query.cursor?.description
        }
    }
}
