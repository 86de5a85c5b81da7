/// A batch's header: everything but its readings.
public struct BatchHeader: Sendable, Equatable {
    public var node: String
    public var seq: UInt64
    public var t: Double
    public init(node: String, seq: UInt64, t: Double) { self.node = node; self.seq = seq; self.t = t }
}

/// One reading as it stands in a batch's bytes: the id is a range of the payload, so
/// decoding a reading allocates nothing. The address is checked but not kept (the engine
/// does not use it; `Batch.decode` still returns it).
public struct BatchReading: Sendable, Equatable {
    /// Offset and length of the id's bytes between its quotes.
    public var idStart: Int32
    public var idCount: Int32
    /// The id's bytes are the id: ASCII without escapes. Otherwise `id(in:)` resolves them.
    public var idIsPlain: Bool
    /// Next to the flag, so that the reading packs into 32 bytes (40 with `kind` after `t`).
    public var kind: ReadingKind
    public var rssi: Int16
    /// Measured power at 1 m, or `BatchReading.noTx`.
    public var tx: Int16
    public var t: Double
    /// Free for the consumer: the aggregator keeps the engine's hash of the id here, made on
    /// the network thread that decoded the batch, so the work queue does not hash it again.
    public var idHash = 0

    public static let noTx = Int16.min

    /// The id's bytes in `payload` (the payload the reading was decoded from).
    @inlinable
    public func idBytes(in payload: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: payload[Int(idStart)..<Int(idStart + idCount)])
    }

    /// The id as a `String`, escapes resolved and invalid UTF-8 repaired as `Batch.decode` does.
    public func id(in payload: UnsafeRawBufferPointer) -> String {
        let raw = idBytes(in: payload)
        guard !idIsPlain else { return String(decoding: raw, as: UTF8.self) }
        var s = JSONScanner(payload, offset: Int(idStart) - 1)
        return (try? s.string()) ?? String(decoding: raw, as: UTF8.self)
    }

    /// The reading as `Batch.decode` makes it, without the address.
    public func reading(in payload: UnsafeRawBufferPointer) -> Reading {
        Reading(id: id(in: payload), rssi: Int(rssi), tx: tx == Self.noTx ? nil : Int(tx), t: t, kind: kind)
    }
}

extension Batch {
    /// Decodes a docs/protocol.md#mqtt-topics-and-payloads batch as `decode` does (the same checks, errors and counts of bad
    /// readings) into `readings`, which is emptied first and reused: no allocation per reading.
    public static func decodeRaw(_ bytes: UnsafeRawBufferPointer, into readings: inout [BatchReading],
                                 badReadings: inout Int) throws(PayloadError) -> BatchHeader {
        readings.removeAll(keepingCapacity: true)
        return try decodeEnvelope(bytes, badReadings: &badReadings) { (s: inout JSONScanner) throws(JSONError) in
            if let r = BatchReading.decodeCanonical(&s) { readings.append(r); return true }
            guard let r = try BatchReading.decode(&s) else { return false }
            readings.append(r)
            return true
        }
    }
}

extension BatchReading {
    /// The reading as edges write it (`Reading.encode`: compact, keys in its order, plain
    /// ASCII id and address, every field valid), read without walking keys; anything else
    /// returns nil with the scanner where it was, for `decode`, so both paths give the same
    /// answers (the fast path only takes what it reads exactly as `decode` would).
    @inline(__always)
    static func decodeCanonical(_ s: inout JSONScanner) -> BatchReading? {
        guard let base = s.bytes.baseAddress, let (r, end) = canonical(base, s.offset, s.bytes.count) else { return nil }
        s.rewind(to: end)
        return r
    }

    /// The canonical reading at `start` of the `count` bytes at `p` and the offset after it,
    /// or nil. One pass with a local index over raw memory: each key and its punctuation is
    /// one compare of an eight-byte word (`CanonicalWords`), strings are checked thirty-two
    /// bytes at a time (`JSONScanner.plainStringEnd`), numbers are read into the same
    /// mantissa and exponent `JSONScanner.double()` makes, and anything unusual (escapes,
    /// bytes of 0x80 or above, whitespace, other key orders or keys, `null`, exponents, long
    /// numbers, values out of range, the end of the buffer near) gives up. Offsets step with
    /// `&+`: they stay within a payload of at most `Batch.maxPayloadBytes`, and an overflow
    /// check at every step was a tenth of the function.
    static func canonical(_ p: UnsafeRawPointer, _ start: Int, _ count: Int) -> (BatchReading, Int)? {
        typealias W = CanonicalWords
        // The last offset a whole word can be read at.
        let last = count &- 8
        var i = start
        // `{"id":"` (seven bytes: the word's last byte is the id's first).
        guard i <= last, word(p, i) & 0x00FF_FFFF_FFFF_FFFF == W.openId else { return nil }
        let idStart = i &+ 7
        guard let idEnd = JSONScanner.plainStringEnd(p, idStart, count) else { return nil }
        let idCount = idEnd &- idStart
        guard idCount > 0, idCount <= Reading.maxIdBytes else { return nil }
        i = idEnd &+ 1
        guard i <= last else { return nil }
        var w = word(p, i)
        if w == W.mac {
            guard let macEnd = JSONScanner.plainStringEnd(p, i &+ 8, count) else { return nil }
            i = macEnd &+ 1
            guard i <= last else { return nil }
            w = word(p, i)
        }
        guard w == W.rssi, let (rssi, afterRssi) = smallInteger(p, i &+ 8, last) else { return nil }
        i = afterRssi
        // At the comma after the RSSI: `,"tx":` or `,"t":`.
        guard i <= last else { return nil }
        w = word(p, i)
        var tx = noTx
        if w & 0x0000_FFFF_FFFF_FFFF == W.tx {
            guard let (v, after) = smallInteger(p, i &+ 6, last) else { return nil }
            tx = v
            i = after
            guard i <= last else { return nil }
            w = word(p, i)
        }
        guard w & 0x0000_00FF_FFFF_FFFF == W.t, let (t, afterT) = time(p, i &+ 5, count) else { return nil }
        i = afterT
        // `,"kind":"` (nine bytes).
        guard i < last, word(p, i) == W.kind, p.load(fromByteOffset: i &+ 8, as: UInt8.self) == UInt8(ascii: "\"") else { return nil }
        i &+= 9
        let kind: ReadingKind
        if i <= last, word(p, i) == W.ibeacon {
            kind = .ibeacon
            i &+= 8
        } else {
            guard let kindEnd = JSONScanner.plainStringEnd(p, i, count),
                  let k = ReadingKind(rawBytes: UnsafeRawBufferPointer(start: p + i, count: kindEnd &- i)) else { return nil }
            kind = k
            i = kindEnd &+ 1
        }
        guard i < count, p.load(fromByteOffset: i, as: UInt8.self) == UInt8(ascii: "}") else { return nil }
        return (BatchReading(idStart: Int32(idStart), idCount: Int32(idCount), idIsPlain: true, kind: kind, rssi: rssi, tx: tx, t: t), i &+ 1)
    }

    @inline(__always)
    private static func word(_ p: UnsafeRawPointer, _ i: Int) -> UInt64 {
        UInt64(littleEndian: p.loadUnaligned(fromByteOffset: i, as: UInt64.self))
    }

    /// An RSSI or a measured power: `-` and one to three digits, or one to three digits, in
    /// -127...20 and followed by a comma (the offset returned is the comma's); otherwise nil.
    /// The bytes are read from one word, at `start` if that is not after `last`.
    @inline(__always)
    private static func smallInteger(_ p: UnsafeRawPointer, _ start: Int, _ last: Int) -> (Int16, Int)? {
        guard start <= last else { return nil }
        var w = word(p, start)
        // Most RSSIs and measured powers are `-dd,` (-10 to -99): the sign, the comma and the
        // two digits checked at once (a byte is a digit when its high nibble is 3 and adding
        // 6 leaves it so).
        if w & 0xFF_F0F0_FF == 0x2C_3030_2D, (w &+ 0x0606_00) & 0xF0F0_00 == 0x3030_00 {
            return (-Int16(truncatingIfNeeded: (w >> 8 & 0xF) &* 10 &+ (w >> 16 & 0xF)), start &+ 3)
        }
        let negative = w & 0xFF == UInt64(UInt8(ascii: "-"))
        if negative { w >>= 8 }
        let d0 = (w & 0xFF) &- 0x30, d1 = (w >> 8 & 0xFF) &- 0x30, d2 = (w >> 16 & 0xFF) &- 0x30
        guard d0 <= 9 else { return nil }
        var value = d0, digits: UInt64 = 1
        if d1 <= 9 {
            value = value &* 10 &+ d1; digits = 2
            if d2 <= 9 { value = value &* 10 &+ d2; digits = 3 }
        }
        guard w >> (8 &* digits) & 0xFF == UInt64(UInt8(ascii: ",")), value <= (negative ? 127 : 20) else { return nil }
        let v = Int16(truncatingIfNeeded: value)
        return (negative ? -v : v, start &+ Int(digits) &+ (negative ? 1 : 0))
    }

    /// A reading's time: digits, optionally a point and digits, nineteen digits at most, no
    /// sign or exponent, a valid time (`Batch.isTime`) and followed by a comma (the offset
    /// returned is the comma's). The value is `JSONScanner.double()`'s for the same bytes: the
    /// same mantissa (every digit, as it keeps up to nineteen) and exponent, scaled by the same
    /// function. Edges' times (ten digits, a point and three: `JSONWriter.time`) are read here
    /// as two words; any other form by `anyTime`, out of line.
    @inline(__always)
    private static func time(_ p: UnsafeRawPointer, _ start: Int, _ count: Int) -> (Double, Int)? {
        // The second word is `dd.ddd,"`: its five digits, moved behind three zeros, are read
        // as one number `000ddddd`.
        if start &+ 16 <= count, let v = JSONScanner.eightDigits(word(p, start)) {
            let w = word(p, start &+ 8)
            if w & 0xFFFF_0000_00FF_0000 == 0x222C_0000_002E_0000,
               let x = JSONScanner.eightDigits(0x30_3030 | (w & 0xFFFF) << 24 | (w & 0x0000_FFFF_FF00_0000) << 16) {
                let m = v &* 100_000 &+ x
                // A whole number of milliseconds from 1 up is a valid time: no `isTime` needed.
                guard m > 0 else { return nil }
                return (scaled(m, -3), start &+ 14)
            }
        }
        return anyTime(p, start, count)
    }

    /// `time` digit by digit, for the forms edges do not write.
    @inline(never)
    private static func anyTime(_ p: UnsafeRawPointer, _ start: Int, _ count: Int) -> (Double, Int)? {
        var i = start
        var mantissa: UInt64 = 0
        var digits = 0, exponent = 0
        while i < count {
            let d = p.load(fromByteOffset: i, as: UInt8.self) &- 0x30
            guard d <= 9 else { break }
            mantissa = mantissa &* 10 &+ UInt64(d)
            digits += 1; i += 1
        }
        guard digits > 0, i < count else { return nil }
        if p.load(fromByteOffset: i, as: UInt8.self) == UInt8(ascii: ".") {
            i += 1
            while i < count {
                let d = p.load(fromByteOffset: i, as: UInt8.self) &- 0x30
                guard d <= 9 else { break }
                mantissa = mantissa &* 10 &+ UInt64(d)
                digits += 1; exponent -= 1; i += 1
            }
            guard exponent < 0, i < count else { return nil }
        }
        guard digits <= 19, mantissa > 0, p.load(fromByteOffset: i, as: UInt8.self) == UInt8(ascii: ",") else { return nil }
        let t = scaled(mantissa, exponent)
        return Batch.isTime(t) ? (t, i) : nil
    }
}

/// The canonical reading's fixed bytes as little-endian words (`BatchReading.canonical`;
/// `JSONScannerFastPathTests` checks them against their text).
enum CanonicalWords {
    /// `{"id":"` (seven bytes)
    static let openId: UInt64 = 0x0022_3A22_6469_227B
    /// `,"mac":"`
    static let mac: UInt64 = 0x223A_2263_616D_222C
    /// `,"rssi":`
    static let rssi: UInt64 = 0x3A22_6973_7372_222C
    /// `,"tx":` (six bytes)
    static let tx: UInt64 = 0x0000_3A22_7874_222C
    /// `,"t":` (five bytes)
    static let t: UInt64 = 0x0000_003A_2274_222C
    /// `,"kind":`
    static let kind: UInt64 = 0x3A22_646E_696B_222C
    /// `ibeacon"`
    static let ibeacon: UInt64 = 0x226E_6F63_6165_6269
}

extension BatchReading {
    /// As `Reading.decode`: `nil` for well-formed JSON that is not a valid reading.
    static func decode(_ s: inout JSONScanner) throws(JSONError) -> BatchReading? {
        var idStart = 0, idCount = -1, idIsPlain = true, idValid = true
        var rssi: Int64?, tx: Int64?, t: Double?, kind: ReadingKind?
        var valid = true
        try s.object { (s: inout JSONScanner, key) throws(JSONError) in
            if keyEquals(key, "id") {
                let quote = s.offset
                let raw = try s.rawString()
                idStart = raw.baseAddress! - s.bytes.baseAddress!
                idCount = raw.count
                idIsPlain = true
                for b in raw where b >= 0x80 || b == UInt8(ascii: "\\") { idIsPlain = false; break }
                idValid = true
                if !idIsPlain {
                    // Escapes must be valid (a bad one makes the batch malformed, as `string()`
                    // does) and the resolved id must be one (`Reading.isValidId`: a plain id,
                    // ASCII without escapes or control characters, is one by construction).
                    var again = JSONScanner(s.bytes, offset: quote)
                    idValid = Reading.isValidId(try again.string())
                }
            }
            else if keyEquals(key, "rssi") { rssi = try s.integer() }
            else if keyEquals(key, "t") { t = try s.double() }
            else if keyEquals(key, "kind") {
                let raw = try s.rawString()
                kind = ReadingKind(rawBytes: raw)
                if kind == nil { valid = false }
            }
            else if keyEquals(key, "tx") { tx = s.null() ? nil : try s.integer() }
            else if keyEquals(key, "mac") {
                if !s.null() {
                    let quote = s.offset
                    let raw = try s.rawString()
                    if raw.contains(UInt8(ascii: "\\")) {
                        var again = JSONScanner(s.bytes, offset: quote)
                        _ = try again.string()
                    }
                }
            }
            else { try s.skipValue() }
        }
        guard valid, idValid, idCount > 0, let rssi, Batch.rssiRange.contains(rssi),
              let t, Batch.isTime(t), let kind else { return nil }
        if idIsPlain && idCount > Reading.maxIdBytes { return nil }
        if let tx, !(-127...20).contains(tx) { return nil }
        return BatchReading(idStart: Int32(idStart), idCount: Int32(idCount), idIsPlain: idIsPlain, kind: kind, rssi: Int16(rssi),
                            tx: tx.map { Int16($0) } ?? noTx, t: t)
    }
}
