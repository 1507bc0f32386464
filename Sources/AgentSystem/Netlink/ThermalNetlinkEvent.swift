// SPDX-License-Identifier: Apache-2.0
/// An event of the kernel's `thermal` generic-netlink family (multicast group `event`), decoded per
/// include/uapi/linux/thermal.h. Temperatures are in millidegrees Celsius, as the kernel sends them
/// (u32 attributes carrying a signed value).
///
/// agentd treats every event as a hint to re-read /sys/class/thermal; the payload says which zone
/// changed.
public enum ThermalNetlinkEvent: Equatable, Sendable {
    /// THERMAL_GENL_EVENT_TZ_CREATE.
    case zoneCreated(zone: UInt32, name: String?)
    /// THERMAL_GENL_EVENT_TZ_DELETE.
    case zoneDeleted(zone: UInt32)
    /// THERMAL_GENL_EVENT_TZ_DISABLE.
    case zoneDisabled(zone: UInt32)
    /// THERMAL_GENL_EVENT_TZ_ENABLE.
    case zoneEnabled(zone: UInt32)
    /// THERMAL_GENL_EVENT_TZ_TRIP_UP: the zone's temperature crossed trip `trip` going up.
    case tripUp(zone: UInt32, trip: UInt32, temperature: Int32?)
    /// THERMAL_GENL_EVENT_TZ_TRIP_DOWN: crossed going down.
    case tripDown(zone: UInt32, trip: UInt32, temperature: Int32?)
    /// THERMAL_GENL_EVENT_TZ_TRIP_CHANGE / _ADD / _DELETE: the zone's trip points changed (re-read them).
    case tripsChanged(zone: UInt32, trip: UInt32?)
    /// THERMAL_GENL_EVENT_THRESHOLD_UP / _DOWN (kernel 6.13+): a user threshold was crossed.
    case thresholdCrossed(zone: UInt32, up: Bool, temperature: Int32?)
    /// Any other command (cooling devices, governors, CPU capabilities, threshold bookkeeping, and
    /// events newer than this code): its number.
    case other(command: UInt8)

    // Event numbers (enum thermal_genl_event).
    public static let eventZoneCreate: UInt8 = 1
    public static let eventZoneDelete: UInt8 = 2
    public static let eventZoneDisable: UInt8 = 3
    public static let eventZoneEnable: UInt8 = 4
    public static let eventTripUp: UInt8 = 5
    public static let eventTripDown: UInt8 = 6
    public static let eventTripChange: UInt8 = 7
    public static let eventTripAdd: UInt8 = 8
    public static let eventTripDelete: UInt8 = 9
    public static let eventThresholdUp: UInt8 = 18
    public static let eventThresholdDown: UInt8 = 19

    // Attribute numbers (enum thermal_genl_attr).
    public static let attributeZoneID: UInt16 = 2       // THERMAL_GENL_ATTR_TZ_ID (u32)
    public static let attributeZoneTemp: UInt16 = 3     // THERMAL_GENL_ATTR_TZ_TEMP (u32, m°C)
    public static let attributeTripID: UInt16 = 5       // THERMAL_GENL_ATTR_TZ_TRIP_ID (u32)
    public static let attributeZoneName: UInt16 = 10    // THERMAL_GENL_ATTR_TZ_NAME (string)

    /// The family name (THERMAL_GENL_FAMILY_NAME).
    public static let familyName = "thermal"
    /// The event multicast group (THERMAL_GENL_EVENT_GROUP_NAME).
    public static let eventGroupName = "event"

    /// Why a thermal message could not be decoded.
    public enum ParseError: Error, Equatable, Sendable {
        /// Shorter than the generic-netlink header.
        case truncated
        /// The attribute list is broken.
        case malformedAttributes
        /// An attribute the event needs is missing (its THERMAL_GENL_ATTR_* number).
        case missingAttribute(UInt16)
    }

    /// Decodes one thermal event message. Pure; never traps on any input.
    public static func parse(_ message: NetlinkMessage) throws(ParseError) -> ThermalNetlinkEvent {
        guard let generic = GenericNetlinkMessage(message) else { throw .truncated }
        return try parse(generic)
    }

    /// Decodes one thermal event from its generic-netlink form.
    public static func parse(_ message: GenericNetlinkMessage) throws(ParseError) -> ThermalNetlinkEvent {
        let attributes = message.attributes
        func zone() throws(ParseError) -> UInt32 {
            guard let value = attributes[type: attributeZoneID]?.u32 else {
                throw attributes.isMalformed ? .malformedAttributes : .missingAttribute(attributeZoneID)
            }
            return value
        }
        func trip() throws(ParseError) -> UInt32 {
            guard let value = attributes[type: attributeTripID]?.u32 else {
                throw attributes.isMalformed ? .malformedAttributes : .missingAttribute(attributeTripID)
            }
            return value
        }
        let temperature = attributes[type: attributeZoneTemp]?.int32
        switch message.command {
        case eventZoneCreate:
            return .zoneCreated(zone: try zone(), name: attributes[type: attributeZoneName]?.string)
        case eventZoneDelete: return .zoneDeleted(zone: try zone())
        case eventZoneDisable: return .zoneDisabled(zone: try zone())
        case eventZoneEnable: return .zoneEnabled(zone: try zone())
        case eventTripUp: return .tripUp(zone: try zone(), trip: try trip(), temperature: temperature)
        case eventTripDown: return .tripDown(zone: try zone(), trip: try trip(), temperature: temperature)
        case eventTripChange, eventTripAdd, eventTripDelete:
            return .tripsChanged(zone: try zone(), trip: attributes[type: attributeTripID]?.u32)
        case eventThresholdUp, eventThresholdDown:
            return .thresholdCrossed(zone: try zone(), up: message.command == eventThresholdUp,
                                     temperature: temperature)
        default:
            return .other(command: message.command)
        }
    }
}
