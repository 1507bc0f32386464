// SPDX-License-Identifier: Apache-2.0
/// The system battery as policy sees it (DESIGN §6): several system batteries combined into one
/// level weighted by their energy; `discharging` when power flows out of them.
public struct BatteryLevel: Sendable, Hashable, Codable {
    /// 0…100.
    public var percent: Int
    /// True while the combined battery discharges (no external power feeding it).
    public var discharging: Bool

    public init(percent: Int, discharging: Bool) {
        self.percent = min(100, max(0, percent))
        self.discharging = discharging
    }
}
