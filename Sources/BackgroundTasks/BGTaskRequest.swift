// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A request to launch the app in the background (Apple's `BGTaskRequest`): the identifier of a
/// job the agent knows, and the earliest it may start.
open class BGTaskRequest: @unchecked Sendable, CustomStringConvertible {
    /// The job's identifier (its `Identifier=`), or one a manifest permits.
    public let identifier: String
    /// Not before this; nil: as soon as the agent's policy allows.
    open var earliestBeginDate: Date?

    init(identifier: String) {
        self.identifier = identifier
    }

    open var description: String {
        "<\(type(of: self)): \(identifier), earliestBeginDate: \(earliestBeginDate.map { "\($0)" } ?? "(none)")>"
    }
}

/// A refresh (`Kind=refresh`): a short run to bring the app's content up to date.
open class BGAppRefreshTaskRequest: BGTaskRequest, @unchecked Sendable {
    public override init(identifier: String) {
        super.init(identifier: identifier)
    }
}

/// Processing (`Kind=processing`): minutes of deferrable work, with its requirements. They add to
/// the job's `RequiresNetwork=`/`RequiresExternalPower=`; they never remove them.
open class BGProcessingTaskRequest: BGTaskRequest, @unchecked Sendable {
    open var requiresNetworkConnectivity = false
    open var requiresExternalPower = false

    public override init(identifier: String) {
        super.init(identifier: identifier)
    }
}

/// Work a person started and watches (`Kind=continued`): a title, a subtitle, progress.
open class BGContinuedProcessingTaskRequest: BGTaskRequest, @unchecked Sendable {
    /// What to do when it cannot start at once.
    public enum SubmissionStrategy: Int, Sendable {
        /// Refuse (`BGTaskScheduler.Error.Code.immediateRunIneligible`).
        case fail
        /// Wait in the job's queue (at most 16).
        case queue
    }

    /// Resources the work needs (`Resources=`).
    public struct Resources: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let gpu = Resources(rawValue: 1 << 0)
    }

    open var title: String
    open var subtitle: String
    open var strategy: SubmissionStrategy = .queue
    open var requiredResources: Resources = []

    public init(identifier: String, title: String, subtitle: String) {
        self.title = title
        self.subtitle = subtitle
        super.init(identifier: identifier)
    }
}
