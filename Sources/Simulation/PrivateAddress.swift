public import BLE

/// Resolvable private addresses (Core Vol 6 Part B 1.3.2.2, Vol 3 Part H 2.2.2): what a phone
/// advertises instead of its identity, rotated every few minutes.
///
/// The address is `prand ‖ hash` (prand in the 24 most significant bits, its top two bits
/// `01`), with `hash = ah(IRK, prand)`. Bytes are in the spec's order, most significant first.
public struct IdentityResolvingKey: Sendable, Equatable {
    /// 16 bytes, most significant first, as written in hex.
    public let bytes: [UInt8]
    private let cipher: AES128

    public init?(_ bytes: [UInt8]) {
        guard let cipher = AES128(key: bytes) else { return nil }
        self.bytes = bytes
        self.cipher = cipher
    }

    /// Parses 32 hex digits.
    public init?(hex: String) {
        guard let bytes = parseHex(hex), bytes.count == 16 else { return nil }
        self.init(bytes)
    }

    public var hex: String { hexString(bytes) }

    /// `ah(k, r) = e(k, 0¹⁰⁴ ‖ r) mod 2²⁴`.
    public func ah(_ prand: UInt32) -> UInt32 {
        var block = [UInt8](repeating: 0, count: 16)
        block[13] = UInt8(truncatingIfNeeded: prand >> 16)
        block[14] = UInt8(truncatingIfNeeded: prand >> 8)
        block[15] = UInt8(truncatingIfNeeded: prand)
        let e = cipher.encrypt(block) ?? block  // 16 bytes in, so never nil
        return UInt32(e[13]) << 16 | UInt32(e[14]) << 8 | UInt32(e[15])
    }

    /// The resolvable private address for `random` (its low 22 bits are used; the top two
    /// bits of prand are set to `01`).
    public func address(random: UInt32) -> BluetoothAddress {
        let prand = (random & 0x3F_FFFF) | 0x40_0000
        return BluetoothAddress(rawValue: UInt64(prand) << 24 | UInt64(ah(prand)))
    }

    /// Whether `address` was made with this key.
    public func resolves(_ address: BluetoothAddress) -> Bool {
        let prand = UInt32(truncatingIfNeeded: address.rawValue >> 24)
        guard prand >> 22 == 0b01 else { return false }
        return ah(prand) == UInt32(truncatingIfNeeded: address.rawValue & 0xFF_FFFF)
    }

    public static func == (a: Self, b: Self) -> Bool { a.bytes == b.bytes }
}

/// Bytes from hex digits (either case); `nil` on an odd count or a non-hex character.
func parseHex(_ text: String) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(digits.count / 2)
    var i = 0
    while i < digits.count {
        guard let hi = hexValue(digits[i]), let lo = hexValue(digits[i + 1]) else { return nil }
        out.append(hi << 4 | lo)
        i += 2
    }
    return out
}

func hexString(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for b in bytes {
        out.append(digits[Int(b >> 4)])
        out.append(digits[Int(b & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
}

private func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
    default: nil
    }
}
