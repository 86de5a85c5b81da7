/// The stable identity of a device (SPEC §1), held as raw values so that finding it for
/// each advertisement allocates nothing. `id` spells it as text, which allocates: the edge
/// calls it only when it publishes, and may cache the result per identity.
public enum DeviceIdentity: Hashable, Sendable, CustomStringConvertible {
    case iBeacon(uuid: UUID128, major: UInt16, minor: UInt16)
    case altBeacon(id1: UUID128, id2: UInt16, id3: UInt16)
    case eddystone(namespace: EddystoneNamespace, instance: UInt64)
    /// A public or static random address.
    case mac(BluetoothAddress)

    /// The identity of an advertisement: its frame's if it carries one, else its address
    /// when that is public or static; `nil` for rotating (RPA/NRPA) addresses, which only an
    /// IRK can name.
    public static func of(frame: DeviceIdentity?, address: BluetoothAddress, type: AddressType) -> DeviceIdentity? {
        if let frame { return frame }
        switch type.rawValue {
        case 0, 2, 3: return .mac(address)
        case 1: return RandomAddressKind(address) == .staticAddress ? .mac(address) : nil
        default: return nil
        }
    }

    /// The id string of SPEC §1, e.g. `iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42`.
    public var id: String {
        switch self {
        case let .iBeacon(uuid, major, minor): "iBeacon:\(uuid)-\(major)-\(minor)"
        case let .altBeacon(id1, id2, id3): "altBeacon:\(id1)-\(id2)-\(id3)"
        case let .eddystone(namespace, instance): "eddystone:\(namespace.hex)-\(instanceHex(instance))"
        case let .mac(address): "mac:\(address)"
        }
    }

    /// The `kind` of SPEC §2 readings: `ibeacon`, `altbeacon`, `eddystone` or `mac`.
    public var kind: String {
        switch self {
        case .iBeacon: "ibeacon"
        case .altBeacon: "altbeacon"
        case .eddystone: "eddystone"
        case .mac: "mac"
        }
    }

    public var description: String { id }
}
