import Crypto
import Testing

/// Bytes from hex digits written most significant first.
func bytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count, by: 2).compactMap { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16) }
}

@Test("AES-128 against FIPS-197 Appendix C.1")
func fipsVector() throws {
    let cipher = try AES128ECB(key: bytes("000102030405060708090a0b0c0d0e0f"))
    #expect(try cipher.encrypt(bytes("00112233445566778899aabbccddeeff")) == bytes("69c4e0d86a7b0430d8cdb78070b4c55a"))
}

@Test("AES-128 against the NIST SP 800-38A ECB-AES128 blocks, one context for all four")
func ecbVectors() throws {
    let cipher = try AES128ECB(key: bytes("2b7e151628aed2a6abf7158809cf4f3c"))
    let pairs = [("6bc1bee22e409f96e93d7e117393172a", "3ad77bb40d7a3660a89ecaf32466ef97"),
                 ("ae2d8a571e03ac9c9eb76fac45af8e51", "f5d3d58503b9699de785895a96fdbaaf"),
                 ("30c81c46a35ce411e5fbc1191a0a52ef", "43b1cd7f598ece23881b00e3ed030688"),
                 ("f69f2445df4f9b17ad2b417be66c3710", "7b0c785e27e8ad3f8223207104725dd4")]
    for (plain, expected) in pairs { #expect(try cipher.encrypt(bytes(plain)) == bytes(expected)) }
}

@Test("ah against the Core spec's sample data (Vol 3 Part H Appendix D.7)")
func coreSampleData() throws {
    let ah = try ResolvingHash(irk: bytes("ec0234a357c8ad05341010a60a397d9b"))
    #expect(ah(0x708194) == 0x0DFBAA)
    #expect(ah.resolves(0x708194_0DFBAA))
    #expect(!ah.resolves(0x708194_0DFBAB))
}

@Test("only the key that made a resolvable private address resolves it")
func otherKeys() throws {
    let ah = try ResolvingHash(irk: bytes("ec0234a357c8ad05341010a60a397d9b"))
    let other = try ResolvingHash(irk: bytes("0123456789abcdef0123456789abcdef"))
    #expect(!other.resolves(0x708194_0DFBAA))
    // The same 24 hash bits under a prand whose top bits are not 01 is no RPA at all.
    let prand: UInt32 = 0x308194
    #expect(!ah.resolves(UInt64(prand) << 24 | UInt64(ah(prand))))
    // Bits above 24 of r are not part of ah's input.
    #expect(ah(0xFF70_8194) == ah(0x708194))
}

@Test("keys and blocks of the wrong size are refused")
func sizes() throws {
    #expect(throws: CryptoError.self) { try AES128ECB(key: [1, 2, 3]) }
    #expect(throws: CryptoError.self) { try ResolvingHash(irk: [UInt8](repeating: 0, count: 32)) }
    let cipher = try AES128ECB(key: [UInt8](repeating: 0, count: 16))
    #expect(throws: CryptoError.self) { try cipher.encrypt([0]) }
}
