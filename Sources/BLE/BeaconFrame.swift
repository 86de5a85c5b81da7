/// A beacon frame found in an advertisement's manufacturer or service data.
public enum BeaconFrame: Hashable, Sendable {
    case iBeacon(IBeacon)
    case altBeacon(AltBeacon)
    case eddystoneUID(EddystoneUID)
    case eddystoneURL(EddystoneURL)
    case eddystoneTLM(EddystoneTLM)
    case eddystoneEID(EddystoneEID)

    /// The frame carried by one AD structure, if it is one. Allocates only for URL text.
    public init?(adType: UInt8, value: UnsafeRawBufferPointer) {
        switch adType {
        case ADType.manufacturerData:
            if let f = IBeacon(manufacturerData: value) { self = .iBeacon(f) }
            else if let f = AltBeacon(manufacturerData: value) { self = .altBeacon(f) }
            else { return nil }
        case ADType.serviceData16:
            guard let frame = EddystoneFrame(serviceData: value) else { return nil }
            switch frame.type {
            case EddystoneFrame.uid: guard let f = EddystoneUID(frame) else { return nil }; self = .eddystoneUID(f)
            case EddystoneFrame.url: guard let f = EddystoneURL(frame) else { return nil }; self = .eddystoneURL(f)
            case EddystoneFrame.tlm: guard let f = EddystoneTLM(frame) else { return nil }; self = .eddystoneTLM(f)
            case EddystoneFrame.eid: guard let f = EddystoneEID(frame) else { return nil }; self = .eddystoneEID(f)
            default: return nil
            }
        default:
            return nil
        }
    }

    public var kind: BeaconKind {
        switch self {
        case .iBeacon: .iBeacon
        case .altBeacon: .altBeacon
        case .eddystoneUID: .eddystoneUID
        case .eddystoneURL: .eddystoneURL
        case .eddystoneTLM: .eddystoneTLM
        case .eddystoneEID: .eddystoneEID
        }
    }

    /// The expected RSSI at 1 m the frame announces. Eddystone announces it at 0 m, which
    /// its spec puts 41 dB above the 1 m value.
    public var measuredPowerAt1m: Int8? {
        switch self {
        case .iBeacon(let f): f.measuredPower
        case .altBeacon(let f): f.referenceRSSI
        case .eddystoneUID(let f): eddystoneAt1m(f.txPowerAt0m)
        case .eddystoneURL(let f): eddystoneAt1m(f.txPowerAt0m)
        case .eddystoneEID(let f): eddystoneAt1m(f.txPowerAt0m)
        case .eddystoneTLM: nil
        }
    }

    /// The identity the frame gives its sender; URL, TLM and EID frames give none.
    public var identity: DeviceIdentity? {
        switch self {
        case .iBeacon(let f): .iBeacon(uuid: f.uuid, major: f.major, minor: f.minor)
        case .altBeacon(let f): .altBeacon(id1: f.id1, id2: f.id2, id3: f.id3)
        case .eddystoneUID(let f): .eddystone(namespace: f.namespace, instance: f.instance)
        default: nil
        }
    }
}

/// Which beacon frame an advertisement carries; the fast path reports this instead of the
/// frame so that it never builds URL text.
public enum BeaconKind: UInt8, Hashable, Sendable, CustomStringConvertible {
    case iBeacon, altBeacon, eddystoneUID, eddystoneURL, eddystoneTLM, eddystoneEID

    public var description: String {
        switch self {
        case .iBeacon: "ibeacon"
        case .altBeacon: "altbeacon"
        case .eddystoneUID: "eddystone-uid"
        case .eddystoneURL: "eddystone-url"
        case .eddystoneTLM: "eddystone-tlm"
        case .eddystoneEID: "eddystone-eid"
        }
    }
}

@inline(__always)
func eddystoneAt1m(_ txAt0m: Int8) -> Int8 { Int8(clamping: Int(txAt0m) - 41) }

/// Apple iBeacon: manufacturer data `4c 00 02 15`, a 16-byte UUID, major, minor (big-endian)
/// and the measured power at 1 m.
public struct IBeacon: Hashable, Sendable {
    public let uuid: UUID128
    public let major: UInt16
    public let minor: UInt16
    public let measuredPower: Int8

    /// `value` is the manufacturer data AD value, company id included.
    public init?(manufacturerData value: UnsafeRawBufferPointer) {
        var c = ByteCursor(value)
        guard c.readUInt16LE() == 0x004C, c.readUInt8() == 0x02, c.readUInt8() == 0x15,
              let uuid = UUID128.readBigEndian(&c), let major = c.readUInt16BE(),
              let minor = c.readUInt16BE(), let power = c.readInt8() else { return nil }
        (self.uuid, self.major, self.minor, self.measuredPower) = (uuid, major, minor, power)
    }
}

/// AltBeacon (github.com/AltBeacon/spec): any company id, code `be ac`, a 20-byte beacon id
/// (conventionally a 16-byte id1 and two 2-byte ids), reference RSSI at 1 m, one reserved byte.
public struct AltBeacon: Hashable, Sendable {
    public let manufacturer: UInt16
    public let id1: UUID128
    public let id2: UInt16
    public let id3: UInt16
    public let referenceRSSI: Int8
    /// The manufacturer-reserved byte; some beacons leave it out.
    public let reserved: UInt8?

    public init?(manufacturerData value: UnsafeRawBufferPointer) {
        var c = ByteCursor(value)
        guard let company = c.readUInt16LE(), c.readUInt16BE() == 0xBEAC,
              let id1 = UUID128.readBigEndian(&c), let id2 = c.readUInt16BE(),
              let id3 = c.readUInt16BE(), let rssi = c.readInt8() else { return nil }
        (manufacturer, self.id1, self.id2, self.id3, referenceRSSI) = (company, id1, id2, id3, rssi)
        reserved = c.readUInt8()
    }
}
