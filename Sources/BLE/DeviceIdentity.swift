/// The stable identity of a device (docs/protocol.md#device-ids), held as raw values so that finding it for
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

    /// The id string of docs/protocol.md#device-ids, e.g. `iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42`.
    /// Spelled into one byte buffer, so it costs two allocations.
    public var id: String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        switch self {
        case let .iBeacon(uuid, major, minor):
            append("iBeacon:", to: &out)
            uuid.appendText(to: &out)
            appendNumbers(major, minor, to: &out)
        case let .altBeacon(id1, id2, id3):
            append("altBeacon:", to: &out)
            id1.appendText(to: &out)
            appendNumbers(id2, id3, to: &out)
        case let .eddystone(namespace, instance):
            append("eddystone:", to: &out)
            namespace.appendHex(to: &out)
            out.append(UInt8(ascii: "-"))
            appendHexBytes(instance, count: 6, to: &out)
        case let .mac(address):
            append("mac:", to: &out)
            address.appendText(to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    private func append(_ text: StaticString, to out: inout [UInt8]) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    /// `-<a>-<b>` in decimal.
    private func appendNumbers(_ a: UInt16, _ b: UInt16, to out: inout [UInt8]) {
        appendDecimal(a, to: &out)
        appendDecimal(b, to: &out)
    }

    private func appendDecimal(_ number: UInt16, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "-"))
        let start = out.count
        var value = number
        repeat {
            out.append(UInt8(ascii: "0") + UInt8(value % 10))
            value /= 10
        } while value > 0
        out[start...].reverse()
    }

    /// The `kind` of docs/protocol.md#mqtt-topics-and-payloads readings: `ibeacon`, `altbeacon`, `eddystone` or `mac`.
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
