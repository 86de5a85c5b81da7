/// One identity resolving key of the edge config (`irks: [{id, key}]`).
///
/// The key is a secret: anyone holding it can follow the phone. Only `name` is ever logged;
/// `description` leaves the key out.
public struct IRKEntry: Sendable, Equatable, CustomStringConvertible {
    /// A label for logs (`phone-jane`); readings carry `deviceID`, not this.
    public var name: String
    /// 16 bytes, most significant first, as written in hex.
    public var key: [UInt8]

    public init(name: String, key: [UInt8]) {
        self.name = name
        self.key = key
    }

    /// Parses `NAME:HEX` (the flag form); `nil` unless HEX is 32 hex digits.
    public init?(flag text: String) {
        guard let colon = text.lastIndex(of: ":"), let key = Self.key(hex: String(text[text.index(after: colon)...])) else {
            return nil
        }
        self.init(name: String(text[..<colon]), key: key)
    }

    /// 16 bytes from 32 hex digits (either case); `nil` otherwise.
    public static func key(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count == 32 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for i in stride(from: 0, to: 32, by: 2) {
            guard let hi = nibble(digits[i]), let lo = nibble(digits[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
        }
        return out
    }

    /// SPEC §1: `irk:<32 lower-case hex digits of the key>`.
    public var deviceID: String {
        let hex = Array("0123456789abcdef".utf8)
        var out = Array("irk:".utf8)
        for b in key { out += [hex[Int(b >> 4)], hex[Int(b & 0x0F)]] }
        return String(decoding: out, as: UTF8.self)
    }

    public var description: String { "IRK \(name)" }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
