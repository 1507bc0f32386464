// SPDX-License-Identifier: Apache-2.0
/// The settings of the keys added for converted machines (issue 26): few jobs set any of them,
/// so they sit behind one more shared reference (`ExtraBox`) inside the rare settings, and a
/// definition that sets none costs no more than before (ARCHITECTURE "What a job costs").
/// A new key of this kind is a field here and a row in `JobKeyTable`.
public struct JobExtraSettings: Hashable, Sendable {
    /// Every `Exec=` line, when there is more than one or the first starts with `-`; empty:
    /// the run is `JobDefinition.exec` alone.
    public var commands: [ExecCommand] = []
    /// `WorkingDirectory=`; nil: `STATE_DIRECTORY`. `~` is the user's home.
    public var workingDirectory: String?
    /// `WorkingDirectory=-…`: a missing directory is no error.
    public var workingDirectoryMayBeMissing = false
    public var environmentFiles: [EnvironmentFileReference] = []
    public var successExitStatus = SuccessExitStatus()
    public var conditions: [UnitCondition] = []
    /// `AfterBoot=`: due this long after boot, once per boot.
    public var afterBoot: Duration?
    public var onFailure: Identifier?
    public var wakeSystem = false
    /// `InhibitIdle=`; nil: yes for continued jobs, no otherwise.
    public var inhibitIdle: Bool?
    /// `OnSleep=`; nil: freeze continued and `OnConditionLost=pause` runs, expire the others.
    public var onSleep: SleepAction?
    public var idleFor: Duration = JobDefinition.defaultIdleFor
    public var description: String?
    public var icon: String?
    public var desktopEntry: String?
    public var sandbox = JobSandbox()

    public init() {}
}

extension JobDefinition {
    /// Holds a `JobExtraSettings` shared by copy on write; `defaults` is shared by every
    /// definition that sets none of them.
    @usableFromInline final class ExtraBox: Hashable, @unchecked Sendable {
        @usableFromInline let settings: JobExtraSettings

        @usableFromInline init(_ settings: JobExtraSettings) { self.settings = settings }

        static let defaults = ExtraBox(JobExtraSettings())

        @usableFromInline static func == (a: ExtraBox, b: ExtraBox) -> Bool {
            a === b || a.settings == b.settings
        }

        @usableFromInline func hash(into hasher: inout Hasher) { hasher.combine(settings) }
    }

    /// The keys of `JobExtraSettings`; a write that changes nothing copies nothing.
    public var extra: JobExtraSettings {
        get { rareBox.settings.extra.settings }
        set {
            guard rareBox.settings.extra.settings != newValue else { return }
            uniqueRareBox().settings.extra = newValue == JobExtraSettings()
                ? ExtraBox.defaults : ExtraBox(newValue)
        }
    }

    /// The commands of one run, in order: every `Exec=` line.
    public var commands: [ExecCommand] {
        let listed = extra.commands
        return listed.isEmpty ? [ExecCommand(argv: exec)] : listed
    }

    public static let defaultIdleFor: Duration = .seconds(900)
}
