/// The H4 packet indicator (Core Vol 4 Part A 2).
public enum HCIPacketType: UInt8, Hashable, Sendable {
    case command = 0x01
    case acl = 0x02
    case sco = 0x03
    case event = 0x04
    case iso = 0x05
}

/// Which LE Meta subevent a report came from.
public enum ReportFormat: UInt8, Hashable, Sendable, CustomStringConvertible {
    /// LE Advertising Report (subevent 0x02).
    case legacy
    /// LE Extended Advertising Report (subevent 0x0D).
    case extended

    public var description: String { self == .legacy ? "legacy" : "extended" }
}

/// Whether an extended report carries all of its advertisement's data (event type bits 5–6).
public enum DataStatus: UInt8, Hashable, Sendable, CustomStringConvertible {
    case complete = 0
    /// More fragments of this advertisement follow.
    case incomplete = 1
    /// The controller gave up: the data is cut short and nothing more will follow.
    case truncated = 2
    case reserved = 3

    public var description: String {
        switch self {
        case .complete: "complete"
        case .incomplete: "incomplete"
        case .truncated: "truncated"
        case .reserved: "reserved"
        }
    }
}

/// Everything about one advertising report except its data: fixed-size, no references.
public struct AdvertisingReportHeader: Hashable, Sendable {
    public var format: ReportFormat
    /// The legacy PDU type (0 ADV_IND … 4 SCAN_RSP), or the extended event type bits.
    public var eventType: UInt16
    public var addressType: AddressType
    public var address: BluetoothAddress
    /// `nil` when the controller says it has none (127).
    public var rssi: Int8?
    /// Extended reports only: the TX power the advertiser put in its header (`nil` for 127).
    public var reportedTxPower: Int8?
    /// Extended reports only. 1 = LE 1M, 2 = LE 2M, 3 = LE Coded; secondary 0 = none.
    public var primaryPHY: UInt8 = 1
    public var secondaryPHY: UInt8 = 0
    /// Extended reports only: advertising set id, 0xFF when none.
    public var sid: UInt8 = 0xFF
    /// Extended reports only: periodic advertising interval in 1.25 ms units, 0 when none.
    public var periodicInterval: UInt16 = 0
    /// Extended directed advertising only: the address it was sent to.
    public var directAddressType: AddressType?
    public var directAddress: BluetoothAddress?

    public init(format: ReportFormat, eventType: UInt16, addressType: AddressType,
                address: BluetoothAddress, rssi: Int8?) {
        self.format = format
        self.eventType = eventType
        self.addressType = addressType
        self.address = address
        self.rssi = rssi
    }

    /// For random addresses, static / resolvable / non-resolvable.
    public var randomKind: RandomAddressKind? { addressType.randomKind(of: address) }

    public var dataStatus: DataStatus {
        format == .legacy ? .complete : DataStatus(rawValue: UInt8(truncatingIfNeeded: eventType >> 5) & 3) ?? .reserved
    }

    public var isDirected: Bool { format == .legacy ? eventType == 1 : eventType & 0x04 != 0 }
    public var isScanResponse: Bool { format == .legacy ? eventType == 4 : eventType & 0x08 != 0 }
}
