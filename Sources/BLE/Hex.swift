/// Hex text to bytes, for command lines, hex dumps and tests.
public enum Hex {
    /// Parses hex digits, ignoring spaces, tabs, `:` and a leading `0x`. `nil` on any other
    /// character or an odd number of digits.
    public static func bytes(_ text: some StringProtocol) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count / 2)
        var high: UInt8?
        var body = Substring(text)
        if body.hasPrefix("0x") || body.hasPrefix("0X") { body = body.dropFirst(2) }
        for c in body.utf8 {
            if c == 0x20 || c == 0x09 || c == UInt8(ascii: ":") || c == 0x0D { continue }
            guard let nibble = nibble(c) else { return nil }
            if let h = high {
                out.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return high == nil ? out : nil
    }

    /// Lower-case hex of `bytes`.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        for b in bytes { appendHex(b, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The value of one hex digit (either case); `nil` for any other byte.
    public static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
