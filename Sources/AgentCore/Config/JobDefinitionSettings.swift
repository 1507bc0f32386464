// SPDX-License-Identifier: Apache-2.0
/// The settings of one `JobDefinition`, held in its shared box (see `JobDefinition.box`); the
/// meaning of each is documented on `JobDefinition`.
public struct JobDefinitionSettings: Hashable, Sendable {
    public var identifier: Identifier
    public var kind: JobKind
    public var exec: [String]
    public var user: String?
    public var interval: Duration?
    public var maxRuntime: Duration?
    public var gracePeriod: Duration
    public var requiresExternalPower: Bool
    public var requiresNetwork: Bool
    public var requiresUnmeteredNetwork: Bool = false
    public var requiresIdle: Bool
    public var progressTimeout: Duration
    public var resources: [String]
    public var retry: RetryPolicy?
    public var onSuccess: Identifier?
    public var onConditionLost: ConditionLostAction
    public var maxPause: Duration
    public var environment: [EnvironmentVariable]
    public var limits: RunLimits
    public var priority: RunPriority = RunPriority()
    public var isDropInScript: Bool
    public var schedule: CalendarEvent? = nil
    public var windows: [TimeWindow] = []
    public var randomizedDelay: Duration = .zero
    public var catchUp: Bool = true
    public var notify: Bool = true

    init(identifier: Identifier, kind: JobKind, exec: [String], isDropInScript: Bool) {
        self.identifier = identifier
        self.kind = kind
        self.exec = exec
        self.user = nil
        self.interval = isDropInScript ? JobDefinition.dropInDefaultInterval : nil
        self.maxRuntime = JobDefinition.defaultMaxRuntime(kind: kind, isDropInScript: isDropInScript)
        self.gracePeriod = JobDefinition.defaultGracePeriod
        self.requiresExternalPower = false
        self.requiresNetwork = false
        self.requiresIdle = false
        self.progressTimeout = JobDefinition.defaultProgressTimeout
        self.resources = []
        self.retry = nil
        self.onSuccess = nil
        self.onConditionLost = .expire
        self.maxPause = JobDefinition.defaultMaxPause
        self.environment = []
        self.limits = RunLimits()
        self.isDropInScript = isDropInScript
    }
}

extension JobDefinition {
    /// Immutable while shared: it is changed only through `uniqueBox()`, which copies it first
    /// unless this definition is its only holder.
    @usableFromInline final class Box: @unchecked Sendable {
        @usableFromInline var settings: JobDefinitionSettings

        @usableFromInline init(_ settings: JobDefinitionSettings) {
            self.settings = settings
        }
    }

    /// The box, copied first when another definition shares it.
    @inlinable mutating func uniqueBox() -> Box {
        if !isKnownUniquelyReferenced(&box) {
            box = Box(box.settings)
        }
        return box
    }

    public static func == (lhs: JobDefinition, rhs: JobDefinition) -> Bool {
        lhs.box === rhs.box || lhs.box.settings == rhs.box.settings
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(box.settings)
    }
}
