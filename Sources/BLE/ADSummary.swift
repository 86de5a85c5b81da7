/// What the fast path needs from advertising data, found in one walk without allocating:
/// the TX Power Level, the first beacon frame's kind and measured power, and the identity
/// of the first frame that gives one.
public struct ADSummary: Hashable, Sendable {
    /// AD type 0x0A.
    public var txPowerLevel: Int8?
    /// Expected RSSI at 1 m announced by a beacon frame.
    public var measuredPower: Int8?
    public var beacon: BeaconKind?
    /// The identity a beacon frame gives (iBeacon, AltBeacon, Eddystone-UID).
    public var frameIdentity: DeviceIdentity?
    /// A lying AD length; the structures before it were used.
    public var error: DecodeError?

    public init(_ data: UnsafeRawBufferPointer, origin: Int = 0) {
        var summary = ADSummary()
        summary.error = walkADStructures(data, origin: origin) { type, value, _ in
            summary.add(type: type, value: value)
        }
        self = summary
    }

    private init() {}

    private mutating func add(type: UInt8, value: UnsafeRawBufferPointer) {
        switch type {
        case ADType.txPowerLevel:
            if value.count == 1 { txPowerLevel = Int8(bitPattern: value[0]) }
        case ADType.manufacturerData:
            if let f = IBeacon(manufacturerData: value) {
                found(.iBeacon, f.measuredPower, .iBeacon(uuid: f.uuid, major: f.major, minor: f.minor))
            } else if let f = AltBeacon(manufacturerData: value) {
                found(.altBeacon, f.referenceRSSI, .altBeacon(id1: f.id1, id2: f.id2, id3: f.id3))
            }
        case ADType.serviceData16:
            if let frame = EddystoneFrame(serviceData: value) { addEddystone(frame) }
        default:
            break
        }
    }

    private mutating func addEddystone(_ frame: EddystoneFrame) {
        switch frame.type {
        case EddystoneFrame.uid:
            if let f = EddystoneUID(frame) {
                found(.eddystoneUID, eddystoneAt1m(f.txPowerAt0m), .eddystone(namespace: f.namespace, instance: f.instance))
            }
        case EddystoneFrame.url:
            // Only the TX power is needed here; the URL text is built by the full decoder.
            var body = frame.body
            if let tx = body.readInt8(), body.readUInt8() != nil { found(.eddystoneURL, eddystoneAt1m(tx), nil) }
        case EddystoneFrame.tlm:
            if EddystoneTLM(frame) != nil { found(.eddystoneTLM, nil, nil) }
        case EddystoneFrame.eid:
            if let f = EddystoneEID(frame) { found(.eddystoneEID, eddystoneAt1m(f.txPowerAt0m), nil) }
        default:
            break
        }
    }

    private mutating func found(_ kind: BeaconKind, _ power: Int8?, _ identity: DeviceIdentity?) {
        if beacon == nil { beacon = kind }
        if measuredPower == nil { measuredPower = power }
        if frameIdentity == nil { frameIdentity = identity }
    }
}
