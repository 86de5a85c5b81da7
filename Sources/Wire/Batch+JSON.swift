/// Why a payload or a reading was refused: the `reason` label of `whereabouts_rejected_total`.
public enum RejectReason: String, Sendable, CaseIterable {
    case malformed          // not JSON, or not the shape of docs/protocol.md#mqtt-topics-and-payloads
    case version            // a batch version this build does not speak
    case oversized          // payload or batch larger than the limits
    case badReading = "bad_reading"   // one reading with a missing or absurd field
    case nodeMismatch = "node_mismatch" // the node in the topic is not the node in the payload
    case unknownNode = "unknown_node"   // a node the site file does not name
    case late               // behind the event-time watermark
    case replayed           // a batch accepted already (the same seq and t)
    case excluded           // a device the site excludes
    case capacity           // a new device while the engine already keeps its most
    case clockAhead = "clock_ahead"     // a batch stamped more than 60 s ahead of its arrival, while isolated
    case partition          // on a partition's topic, a reading of a device in another shard's partition (the edge's partitions differ from the site's)
}

/// A refused payload: the reason (for the metric) and a message with the offset (for the log).
public struct PayloadError: Error, Equatable, CustomStringConvertible {
    public let reason: RejectReason
    public let message: String
    public init(_ reason: RejectReason, _ message: String) { self.reason = reason; self.message = message }
    public var description: String { "\(reason.rawValue): \(message)" }
}

extension Batch {
    /// The largest payload accepted (bytes) and readings per batch.
    public static let maxPayloadBytes = 1 << 20
    public static let maxReadings = 10_000
    /// RSSI outside this range (dBm) is absurd; 127 means "not available" in HCI.
    public static let rssiRange: ClosedRange<Int64> = -127...20

    /// A time (Unix seconds) is finite and stays positive at the millisecond precision it is
    /// written with (docs/protocol.md#mqtt-topics-and-payloads): a batch accepted here is one its own encoding would not refuse.
    @inline(__always)
    public static func isTime(_ t: Double) -> Bool { t.isFinite && (t * 1000).rounded() >= 1 }

    /// Decodes a docs/protocol.md#mqtt-topics-and-payloads batch. A malformed document throws; a single bad reading is left
    /// out and counted in `badReadings`, so one bad reading never costs the others.
    public static func decode(_ bytes: UnsafeRawBufferPointer, badReadings: inout Int) throws(PayloadError) -> Batch {
        var readings: [Reading] = []
        let header = try decodeEnvelope(bytes, badReadings: &badReadings) { (s: inout JSONScanner) throws(JSONError) in
            guard let r = try Reading.decode(&s) else { return false }
            readings.append(r)
            return true
        }
        return Batch(node: header.node, seq: header.seq, t: header.t, readings: readings)
    }

    /// What every batch decoder shares: the size limit, the header's keys and checks, the
    /// limit on readings and the count of bad ones. `reading` decodes one element of
    /// `readings` and says whether it was kept (a reading it leaves out is counted as bad).
    @inline(__always)
    static func decodeEnvelope(_ bytes: UnsafeRawBufferPointer, badReadings: inout Int,
                               reading: (inout JSONScanner) throws(JSONError) -> Bool) throws(PayloadError) -> BatchHeader {
        guard bytes.count <= maxPayloadBytes else { throw PayloadError(.oversized, "payload of \(bytes.count) bytes") }
        var scanner = JSONScanner(bytes)
        var version: Int64?, node: String?, seq: Int64?, t: Double?
        var kept = 0, skipped = 0
        do throws(JSONError) {
            try scanner.object { (s: inout JSONScanner, key) throws(JSONError) in
                if keyEquals(key, "v") { version = try s.integer() }
                else if keyEquals(key, "node") { node = try s.string() }
                else if keyEquals(key, "seq") { seq = try s.integer() }
                else if keyEquals(key, "t") { t = try s.double() }
                else if keyEquals(key, "readings") {
                    // `s.array` written out: the loop over up to 10,000 readings stays in
                    // this function, with `reading` inlined into it, instead of a closure call.
                    try s.expect(UInt8(ascii: "["))
                    if !s.consume(UInt8(ascii: "]")) {
                        repeat {
                            guard kept < maxReadings else { throw s.error("more than \(maxReadings) readings") }
                            if try reading(&s) { kept += 1 } else { skipped += 1 }
                        } while s.consume(UInt8(ascii: ","))
                        try s.expect(UInt8(ascii: "]"))
                    }
                } else { try s.skipValue() }
            }
            guard scanner.isAtEnd else { throw scanner.error("trailing bytes") }
        } catch {
            throw PayloadError(error.message.hasPrefix("more than") ? .oversized : .malformed, error.description)
        }
        guard let version else { throw PayloadError(.malformed, "missing \"v\"") }
        guard version == Int64(Batch.version) else { throw PayloadError(.version, "batch version \(version)") }
        guard let node, !node.isEmpty else { throw PayloadError(.malformed, "missing \"node\"") }
        guard let seq, seq >= 0 else { throw PayloadError(.malformed, "missing or negative \"seq\"") }
        guard let t, isTime(t) else { throw PayloadError(.malformed, "missing or bad \"t\"") }
        badReadings += skipped
        return BatchHeader(node: node, seq: UInt64(seq), t: t)
    }

    public static func decode(_ bytes: [UInt8], badReadings: inout Int) throws(PayloadError) -> Batch {
        var skipped = 0
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(PayloadError) -> Batch in try decode(raw, badReadings: &skipped) }
        }
        badReadings += skipped
        return try result.get()
    }

    /// Encodes the batch as docs/protocol.md#mqtt-topics-and-payloads fixes it.
    public func encode(into w: inout JSONWriter) {
        w.objectStart()
        w.field("v", Batch.version)
        w.field("node", node)
        w.key("seq"); w.value(seq)
        w.key("t"); w.time(t)
        w.key("readings"); w.arrayStart()
        for r in readings { r.encode(into: &w) }
        w.arrayEnd()
        w.objectEnd()
    }
}

extension Reading {
    /// The longest device id accepted, in bytes.
    public static let maxIdBytes = 200

    /// Whether `id` can name a device: 1 to `maxIdBytes` bytes of ASCII without control
    /// characters. Every id docs/protocol.md#device-ids spells is ASCII; the rule keeps the dialects' free-form ids
    /// to it too, because the engine tells ids apart by their bytes and Swift's `String` by
    /// canonical equivalence: `caf\u{E9}` and `cafe\u{301}` would be two devices to the one and
    /// one to the other (its tables keyed by `String`). For ASCII the two agree.
    public static func isValidId(_ id: String) -> Bool {
        let bytes = id.utf8
        return !bytes.isEmpty && bytes.count <= maxIdBytes && bytes.allSatisfy { $0 >= 0x20 && $0 < 0x80 }
    }

    /// Decodes one reading object; `nil` when the object is well-formed JSON but not a valid
    /// reading (the caller counts it). Throws only on malformed JSON.
    static func decode(_ s: inout JSONScanner) throws(JSONError) -> Reading? {
        var id: String?, mac: String?, rssi: Int64?, tx: Int64?, t: Double?, kind: ReadingKind?
        var valid = true
        try s.object { (s: inout JSONScanner, key) throws(JSONError) in
            if keyEquals(key, "id") { id = try s.string() }
            else if keyEquals(key, "rssi") { rssi = try s.integer() }
            else if keyEquals(key, "t") { t = try s.double() }
            else if keyEquals(key, "kind") {
                let raw = try s.rawString()
                kind = ReadingKind(rawBytes: raw)
                if kind == nil { valid = false }
            }
            else if keyEquals(key, "tx") { tx = s.null() ? nil : try s.integer() }
            else if keyEquals(key, "mac") { mac = s.null() ? nil : try s.string() }
            else { try s.skipValue() }
        }
        guard valid, let id, isValidId(id), let rssi, Batch.rssiRange.contains(rssi),
              let t, Batch.isTime(t), let kind else { return nil }
        if let tx, !(-127...20).contains(tx) { return nil }
        return Reading(id: id, mac: mac, rssi: Int(rssi), tx: tx.map(Int.init), t: t, kind: kind)
    }

    public func encode(into w: inout JSONWriter) {
        w.objectStart()
        w.field("id", id)
        if let mac { w.field("mac", mac) }
        w.field("rssi", rssi)
        if let tx { w.field("tx", tx) }
        w.key("t"); w.time(t)
        w.field("kind", kind.rawValue)
        w.objectEnd()
    }
}

extension ReadingKind {
    init?(rawBytes raw: UnsafeRawBufferPointer) {
        if keyEquals(raw, "ibeacon") { self = .ibeacon }
        else if keyEquals(raw, "mac") { self = .mac }
        else if keyEquals(raw, "altbeacon") { self = .altbeacon }
        else if keyEquals(raw, "eddystone") { self = .eddystone }
        else if keyEquals(raw, "irk") { self = .irk }
        else { return nil }
    }
}
