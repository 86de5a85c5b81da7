/// How a reading's device id was made (docs/protocol.md#device-ids).
public enum ReadingKind: String, Sendable, CaseIterable {
    case ibeacon, altbeacon, eddystone, irk, mac
}

/// One RSSI reading of one device by one node (docs/protocol.md#mqtt-topics-and-payloads).
public struct Reading: Sendable, Equatable {
    /// The device id, e.g. `iBeacon:<uuid>-<major>-<minor>` or `mac:aa:bb:cc:dd:ee:ff`.
    public var id: String
    /// The advertiser's address as heard, if known.
    public var mac: String?
    /// dBm.
    public var rssi: Int
    /// Measured power at 1 m, when the frame carries one.
    public var tx: Int?
    /// Unix seconds.
    public var t: Double
    public var kind: ReadingKind

    public init(id: String, mac: String? = nil, rssi: Int, tx: Int? = nil, t: Double, kind: ReadingKind) {
        self.id = id; self.mac = mac; self.rssi = rssi; self.tx = tx; self.t = t; self.kind = kind
    }
}

/// A batch of readings published by a node on `<p>/nodes/<node>/readings`.
public struct Batch: Sendable, Equatable {
    public static let version = 1
    public var node: String
    /// Grows by one per batch; a gap tells the aggregator what was lost.
    public var seq: UInt64
    /// Unix seconds when the batch was published.
    public var t: Double
    public var readings: [Reading]

    public init(node: String, seq: UInt64, t: Double, readings: [Reading]) {
        self.node = node; self.seq = seq; self.t = t; self.readings = readings
    }
}
