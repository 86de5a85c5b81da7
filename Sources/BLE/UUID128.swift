/// A 128-bit UUID held as two numbers, most significant first, so it is hashable and
/// copyable without allocation. `high` holds the first eight bytes of the text form.
public struct UUID128: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let high: UInt64
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Reads 16 bytes in network order (iBeacon, AltBeacon, Eddystone).
    static func readBigEndian(_ cursor: inout ByteCursor) -> UUID128? {
        guard cursor.remaining >= 16, let h = cursor.readBigEndian(8), let l = cursor.readBigEndian(8) else { return nil }
        return UUID128(high: h, low: l)
    }

    /// Reads 16 bytes in the little-endian order of AD UUID lists and service data.
    static func readLittleEndian(_ cursor: inout ByteCursor) -> UUID128? {
        guard cursor.remaining >= 16, let l = cursor.readLittleEndian(8), let h = cursor.readLittleEndian(8) else { return nil }
        return UUID128(high: h, low: l)
    }

    /// The Bluetooth base UUID with a 16- or 32-bit short UUID put in.
    public init(short: UInt32) {
        self.init(high: UInt64(short) << 32 | 0x0000_1000, low: 0x8000_0080_5F9B_34FB)
    }

    /// Lower-case dashed text, `f7826da6-4fa2-4e98-8024-bc5b71e0893e`.
    public var description: String {
        var out: [UInt8] = []
        out.reserveCapacity(36)
        appendText(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func appendText(to out: inout [UInt8]) {
        for i in 0..<16 {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append(UInt8(ascii: "-")) }
            appendHex(byte(i), to: &out)
        }
    }

    /// Lower-case hex without dashes.
    public var hex: String {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for i in 0..<16 { appendHex(byte(i), to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Byte `i` (0...15) of the network-order form.
    public func byte(_ i: Int) -> UInt8 {
        let word = i < 8 ? high : low
        return UInt8(truncatingIfNeeded: word >> UInt64(8 * (7 - i % 8)))
    }

    public static func < (a: Self, b: Self) -> Bool { (a.high, a.low) < (b.high, b.low) }
}
