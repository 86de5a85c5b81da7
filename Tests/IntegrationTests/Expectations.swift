import Foundation
import MQTT

/// A reading as the tests expect or receive it.
struct SeenReading: Equatable, CustomStringConvertible {
    var id: String
    var mac: String
    var rssi: Int
    var tx: Int?
    var t: Double
    var kind: String

    /// Same reading, allowing for the millisecond rounding of times on the wire.
    func matches(_ other: SeenReading) -> Bool {
        id == other.id && mac == other.mac && rssi == other.rssi && tx == other.tx && kind == other.kind && abs(t - other.t) < 0.0006
    }

    var description: String { "\(id) \(rssi) dBm @\(t)" }
}

/// The readings the golden file implies, worked out here from its AD data and addresses
/// (not with the BLE module) so the edge is checked against an independent reading of docs/protocol.md#device-ids.
func goldenReadings() throws -> [SeenReading] {
    let text = try String(contentsOf: fixtures.appendingPathComponent("horizon74.golden.jsonl"), encoding: .utf8)
    var out: [SeenReading] = []
    for line in text.split(separator: "\n") {
        let event = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
        let t = event["unix_ts"] as! Double
        for report in event["reports"] as! [[String: Any]] {
            let addr = report["addr"] as! String
            let ad = (report["ad"] as! [[Any]]).map { ($0[0] as! Int, $0[1] as! String) }
            precondition(!ad.contains { $0.0 == 0x16 && $0.1.hasPrefix("aafe") }, "fixture has Eddystone: extend this oracle")
            precondition(!ad.contains { $0.0 == 0xFF && $0.1.dropFirst(4).hasPrefix("beac") }, "fixture has AltBeacon: extend this oracle")
            let rssi = report["rssi"] as! Int
            if let beacon = ad.first(where: { $0.0 == 0xFF && $0.1.hasPrefix("4c000215") && $0.1.count == 50 }) {
                let hex = Array(beacon.1)
                func field(_ from: Int, _ to: Int) -> String { String(hex[from..<to]) }
                let uuid = [field(8, 16), field(16, 20), field(20, 24), field(24, 28), field(28, 40)].joined(separator: "-")
                let id = "iBeacon:\(uuid)-\(Int(field(40, 44), radix: 16)!)-\(Int(field(44, 48), radix: 16)!)"
                let tx = Int(Int8(bitPattern: UInt8(field(48, 50), radix: 16)!))
                out.append(SeenReading(id: id, mac: addr, rssi: rssi, tx: tx, t: t, kind: "ibeacon"))
                continue
            }
            let type = report["addr_type"] as! Int
            let top = UInt8(addr.prefix(2), radix: 16)! >> 6
            // Public, or random static (top bits 11); rotating private addresses name nobody.
            if type == 0 || (type == 1 && top == 0b11) {
                out.append(SeenReading(id: "mac:\(addr)", mac: addr, rssi: rssi, tx: nil, t: t, kind: "mac"))
            }
        }
    }
    return out
}

/// The golden file's events as H4 hex, in capture order.
func goldenPackets() throws -> [String] {
    let text = try String(contentsOf: fixtures.appendingPathComponent("horizon74.golden.jsonl"), encoding: .utf8)
    return try text.split(separator: "\n").map { line in
        (try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any])["h4_hex"] as! String
    }
}

/// Readings batches as received, decoded with Foundation (not with Wire's decoder).
struct ReceivedBatch {
    var seq: Int
    var node: String
    var payload: [UInt8]
    var readings: [SeenReading]

    init(_ message: MQTTMessage) throws {
        payload = message.payload
        let object = try JSONSerialization.jsonObject(with: Data(message.payload)) as! [String: Any]
        seq = object["seq"] as! Int
        node = object["node"] as! String
        readings = (object["readings"] as! [[String: Any]]).map { r in
            SeenReading(id: r["id"] as! String, mac: r["mac"] as! String, rssi: r["rssi"] as! Int,
                        tx: r["tx"] as? Int, t: r["t"] as! Double, kind: r["kind"] as! String)
        }
    }
}

/// What a run delivered: batches in arrival order with exact re-deliveries of a `seq`
/// (QoS 1 may repeat a batch whose PUBACK was lost) folded into one, and how many
/// re-deliveries there were. A `seq` seen twice with different content is an error.
func deliveredBatches(_ messages: [MQTTMessage], topic: String) throws -> (batches: [ReceivedBatch], redelivered: Int) {
    var bySeq: [Int: [UInt8]] = [:]
    var out: [ReceivedBatch] = []
    var redelivered = 0
    for m in messages where m.topic == topic {
        let batch = try ReceivedBatch(m)
        if let earlier = bySeq[batch.seq] {
            guard earlier == batch.payload else { throw HarnessError("seq \(batch.seq) sent twice with different readings") }
            redelivered += 1
            continue
        }
        bySeq[batch.seq] = batch.payload
        out.append(batch)
    }
    return (out, redelivered)
}

/// Telemetry messages as dictionaries, oldest first.
func telemetry(_ messages: [MQTTMessage], topic: String) -> [[String: Any]] {
    messages.filter { $0.topic == topic }.compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any]
    }
}

func text(_ messages: [MQTTMessage], topic: String) -> [String] {
    messages.filter { $0.topic == topic }.map { String(decoding: $0.payload, as: UTF8.self) }
}

/// Whether `readings` match `expected` one for one, in order.
func sameReadings(_ readings: [SeenReading], _ expected: some Collection<SeenReading>) -> Bool {
    readings.count == expected.count && zip(readings, expected).allSatisfy { $0.matches($1) }
}

/// A btsnoop capture of only the golden file's advertising events (12.9 s of the 147 s
/// fixture), written here byte by byte so paced tests stay short. The caller removes it.
func goldenCapture() throws -> URL {
    let text = try String(contentsOf: fixtures.appendingPathComponent("horizon74.golden.jsonl"), encoding: .utf8)
    var bytes = Array("btsnoop\0".utf8)
    func be<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.bigEndian) { bytes.append(contentsOf: $0) } }
    be(UInt32(1)); be(UInt32(1002))
    for line in text.split(separator: "\n") {
        let event = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
        let hex = Array((event["h4_hex"] as! String).utf8)
        let packet = stride(from: 0, to: hex.count, by: 2).map { UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
        be(UInt32(packet.count)); be(UInt32(packet.count))
        be(UInt32(3))  // received, command/event
        be(UInt32(0))
        be((event["btsnoop_ts_us"] as! NSNumber).int64Value)
        bytes += packet
    }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("golden-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log")
    try Data(bytes).write(to: url)
    return url
}
