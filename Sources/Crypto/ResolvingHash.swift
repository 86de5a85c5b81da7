/// The random address hash function `ah` of Bluetooth Core Vol 3 Part H 2.2.2, which makes and
/// resolves resolvable private addresses (Core Vol 6 Part B 1.3.2.2).
///
/// `ah(k, r) = e(k, r') mod 2²⁴`, with `r'` the 24-bit `r` padded with 104 zero bits on the
/// most significant side. A resolvable private address is `prand ‖ hash`: `prand` in its 24
/// most significant bits (top two bits `01`), `hash = ah(IRK, prand)` in the rest.
public struct ResolvingHash {
    private let cipher: AES128ECB

    /// `irk`: the 16-byte identity resolving key, most significant byte first (as the Core
    /// spec's sample data and the site file write it).
    public init(irk: [UInt8]) throws(CryptoError) {
        cipher = try AES128ECB(key: irk)
    }

    /// `ah(irk, prand)`; only the low 24 bits of `prand` are used. Allocates nothing.
    public func callAsFunction(_ prand: UInt32) -> UInt32 {
        // Two 16-byte blocks on the stack: plaintext and ciphertext.
        var blocks: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &blocks) { raw in
            raw[13] = UInt8(truncatingIfNeeded: prand >> 16)
            raw[14] = UInt8(truncatingIfNeeded: prand >> 8)
            raw[15] = UInt8(truncatingIfNeeded: prand)
            // A 32-byte tuple always has a base address.
            guard let base = raw.baseAddress, cipher.encrypt(base, into: base + 16) else { return UInt32.max }
            return UInt32(raw[29]) << 16 | UInt32(raw[30]) << 8 | UInt32(raw[31])
        }
    }

    /// Whether `address` (48 bits, as its text form spells it) is a resolvable private
    /// address made with this key.
    public func resolves(_ address: UInt64) -> Bool {
        let prand = UInt32(truncatingIfNeeded: address >> 24) & 0xFF_FFFF
        guard prand >> 22 == 0b01 else { return false }
        return self(prand) == UInt32(truncatingIfNeeded: address) & 0xFF_FFFF
    }
}
