// SPDX-License-Identifier: Apache-2.0
/// The settings of one `JobDefinition`, held in its shared box (see `JobDefinition.box`); the
/// meaning of each is documented on `JobDefinition`.
public struct JobDefinitionSettings: Hashable, Sendable {
    public var identifier: Identifier
    public var kind: JobKind
    public var exec: [String]
    public var interval: Duration?
    public var maxRuntime: Duration?
    public var gracePeriod: Duration
    public var requiresExternalPower: Bool
    public var requiresNetwork: Bool
    public var requiresIdle: Bool
    public var progressTimeout: Duration
    public var isDropInScript: Bool

    init(identifier: Identifier, kind: JobKind, exec: [String], isDropInScript: Bool) {
        self.identifier = identifier
        self.kind = kind
        self.exec = exec
        self.interval = isDropInScript ? JobDefinition.dropInDefaultInterval : nil
        self.maxRuntime = JobDefinition.defaultMaxRuntime(kind: kind, isDropInScript: isDropInScript)
        self.gracePeriod = JobDefinition.defaultGracePeriod
        self.requiresExternalPower = false
        self.requiresNetwork = false
        self.requiresIdle = false
        self.progressTimeout = JobDefinition.defaultProgressTimeout
        self.isDropInScript = isDropInScript
    }
}

/// The settings of a `JobDefinition` that most jobs leave at their defaults, held in a box all
/// such definitions share (`JobDefinition.rareBox`).
public struct JobDefinitionRareSettings: Hashable, Sendable {
    public var user: String? = nil
    public var requiresUnmeteredNetwork: Bool = false
    public var resources: [String] = []
    public var retry: RetryPolicy? = nil
    public var onSuccess: Identifier? = nil
    public var onConditionLost: ConditionLostAction = .expire
    public var maxPause: Duration = JobDefinition.defaultMaxPause
    public var environment: [EnvironmentVariable] = []
    public var limits: RunLimits = RunLimits()
    public var priority: RunPriority = RunPriority()
    public var schedule: CalendarEvent? = nil
    public var windows: [TimeWindow] = []
    public var randomizedDelay: Duration = .zero
    public var catchUp: Bool = true
    public var notify: Bool = true
    /// The rarer keys still (`JobExtraSettings`), behind one more shared reference.
    @usableFromInline var extra: JobDefinition.ExtraBox = .defaults
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

    /// Like `Box`, for the settings most jobs leave at their defaults.
    @usableFromInline final class RareBox: @unchecked Sendable {
        @usableFromInline var settings: JobDefinitionRareSettings

        @usableFromInline init(_ settings: JobDefinitionRareSettings) {
            self.settings = settings
        }

        /// The box of every definition whose rare settings are all at their defaults.
        static let defaults = RareBox(JobDefinitionRareSettings())
    }

    /// The rare settings' box, copied first when another definition shares it.
    @inlinable mutating func uniqueRareBox() -> RareBox {
        if !isKnownUniquelyReferenced(&rareBox) {
            rareBox = RareBox(rareBox.settings)
        }
        return rareBox
    }

    /// The box, copied first when another definition shares it.
    @inlinable mutating func uniqueBox() -> Box {
        if !isKnownUniquelyReferenced(&box) {
            box = Box(box.settings)
        }
        return box
    }

    public static func == (lhs: JobDefinition, rhs: JobDefinition) -> Bool {
        (lhs.box === rhs.box || lhs.box.settings == rhs.box.settings)
            && (lhs.rareBox === rhs.rareBox || lhs.rareBox.settings == rhs.rareBox.settings)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(box.settings)
        hasher.combine(rareBox.settings)
    }
}
