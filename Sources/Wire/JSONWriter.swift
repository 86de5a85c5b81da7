/// Writes JSON into a byte buffer, with no Foundation and no intermediate values.
///
/// Commas are placed by the writer: call `key` then a value inside objects, values alone
/// inside arrays. Reuse one writer with `reset()` on hot paths to keep its capacity.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    private var needsComma = false
    private let capacity: Int

    public init(capacity: Int = 256) {
        self.capacity = capacity
        bytes.reserveCapacity(capacity)
    }

    public mutating func reset() {
        // A buffer handed out as a payload is shared, so keeping its capacity allocates that
        // much anew: after one large payload (a zone's occupancy lists every occupant) every
        // later small one cost as much. Back to the usual size instead.
        if bytes.capacity > 2 * capacity {
            bytes = []
            bytes.reserveCapacity(capacity)
        } else {
            bytes.removeAll(keepingCapacity: true)
        }
        needsComma = false
    }

    public var string: String { String(decoding: bytes, as: UTF8.self) }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    public mutating func objectStart() { separate(); bytes.append(UInt8(ascii: "{")); needsComma = false }
    public mutating func objectEnd() { bytes.append(UInt8(ascii: "}")); needsComma = true }
    public mutating func arrayStart() { separate(); bytes.append(UInt8(ascii: "[")); needsComma = false }
    public mutating func arrayEnd() { bytes.append(UInt8(ascii: "]")); needsComma = true }

    /// Writes `"key":`; the next call writes the value.
    public mutating func key(_ key: String) {
        separate()
        appendQuoted(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes `"key":` for a key known to need no escapes (a literal): no scan, one append.
    public mutating func key(literal key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        append(key)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Appends bytes already written by a writer (a cached prefix of a payload) ending in a
    /// key: the next call writes that key's value.
    public mutating func appendKeyed(_ written: [UInt8]) {
        separate()
        bytes.append(contentsOf: written)
        needsComma = false
    }

    public mutating func value(_ s: String) { separate(); appendQuoted(s) }
    public mutating func value(_ v: Bool) { separate(); append(v ? "true" : "false") }
    public mutating func null() { separate(); append("null") }

    public mutating func value<I: BinaryInteger>(_ v: I) {
        separate()
        appendInteger(v)
    }

    /// A number with at most `decimals` digits after the point (trailing zeros kept off,
    /// except that times keep exactly three: use `time`). Non-finite numbers become `null`.
    public mutating func value(_ v: Double, decimals: Int = 3) {
        separate()
        appendFixed(v, decimals: decimals, trim: true)
    }

    /// Unix seconds with millisecond precision, as docs/protocol.md#mqtt-topics-and-payloads fixes (`1764410000.250`).
    public mutating func time(_ t: Double) {
        separate()
        appendFixed(t, decimals: 3, trim: false)
    }

    /// Bytes as lower-case hex in a string.
    public mutating func hex<C: Collection>(_ data: C) where C.Element == UInt8 {
        separate()
        bytes.append(UInt8(ascii: "\""))
        for b in data {
            bytes.append(hexDigit(b >> 4))
            bytes.append(hexDigit(b & 0x0F))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Splices already-encoded JSON as one value.
    public mutating func raw(_ json: [UInt8]) { separate(); bytes.append(contentsOf: json) }

    // Conveniences for `"key": value` pairs.
    public mutating func field(_ k: String, _ v: String) { key(k); value(v) }
    public mutating func field(_ k: String, _ v: Int) { key(k); value(v) }
    public mutating func field(_ k: String, _ v: Double, decimals: Int = 3) { key(k); value(v, decimals: decimals) }
    public mutating func field(_ k: String, _ v: Bool) { key(k); value(v) }

    private mutating func append(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func appendInteger<I: BinaryInteger>(_ v: I) {
        if v == 0 { bytes.append(UInt8(ascii: "0")); return }
        if v < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(UInt64(truncatingIfNeeded: v.magnitude), count: nil)
    }

    /// `value`'s decimal digits (exactly `count` of them, zeros in front, when given) in one
    /// append: digits are made right to left in a stack buffer, not appended one by one.
    @inline(__always)
    private mutating func appendDigits(_ value: UInt64, count: Int?) {
        var v = value
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            var i = 24
            repeat {
                i -= 1
                buffer[i] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: v % 10)
                v /= 10
            } while (count.map { 24 - i < $0 } ?? (v > 0)) && i > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[i..<24]))
        }
    }

    private mutating func appendFixed(_ v: Double, decimals: Int, trim: Bool) {
        guard v.isFinite else { append("null"); return }
        var scale: Double = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(v) * scale).rounded()
        // Beyond what fits the fixed form: whole numbers while they fit Int64, else the
        // shortest exponent form (still JSON), so no finite input can trap here.
        guard scaled < 9.0e18 else {
            if let whole = Int64(exactly: v.rounded()) { appendInteger(whole) } else { bytes.append(contentsOf: v.description.utf8) }
            return
        }
        let units = UInt64(scaled)
        let whole = units / UInt64(scale)
        var fraction = units % UInt64(scale)
        if v < 0 && units != 0 { bytes.append(UInt8(ascii: "-")) }
        appendInteger(whole)
        guard decimals > 0 else { return }
        var digits = decimals
        if trim {
            while digits > 0 && fraction % 10 == 0 {
                fraction /= 10
                digits -= 1
            }
            if digits == 0 { return }
        }
        bytes.append(UInt8(ascii: "."))
        appendDigits(fraction, count: digits)
    }

    private mutating func appendQuoted(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        // Ids, names and keys rarely need escapes: copy them whole rather than byte by byte.
        let copied = s.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard !utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if copied == true {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0..<0x20:
                append("\\u00")
                bytes.append(hexDigit(b >> 4))
                bytes.append(hexDigit(b & 0x0F))
            default: bytes.append(b)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

@inline(__always)
func hexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
}
