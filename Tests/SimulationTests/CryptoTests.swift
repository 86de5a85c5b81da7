import BLE
@testable import Simulation
import Testing

/// FIPS-197 Appendix C.1: AES-128 of 00112233…ff under 00010203…0f.
@Test func aesMatchesFIPS197AppendixC1() throws {
    let key = try #require(parseHex("000102030405060708090a0b0c0d0e0f"))
    let plaintext = try #require(parseHex("00112233445566778899aabbccddeeff"))
    let aes = try #require(AES128(key: key))
    #expect(aes.encrypt(plaintext).map(hexString) == "69c4e0d86a7b0430d8cdb78070b4c55a")
}

/// FIPS-197 Appendix B: the cipher example with its own key and input.
@Test func aesMatchesFIPS197AppendixB() throws {
    let key = try #require(parseHex("2b7e151628aed2a6abf7158809cf4f3c"))
    let input = try #require(parseHex("3243f6a8885a308d313198a2e0370734"))
    let aes = try #require(AES128(key: key))
    #expect(aes.encrypt(input).map(hexString) == "3925841d02dc09fbdc118597196a0b32")
}

@Test func aesRefusesWrongSizes() {
    #expect(AES128(key: [UInt8](repeating: 0, count: 15)) == nil)
    #expect(AES128(key: [UInt8](repeating: 0, count: 16))?.encrypt([1, 2, 3]) == nil)
}

/// Core spec Vol 3 Part H Appendix D.7 (ah sample data): IRK ec0234a3…, prand 708194 → 0dfbaa.
@Test func ahMatchesTheCoreSpecSampleData() throws {
    let irk = try #require(IdentityResolvingKey(hex: "ec0234a357c8ad05341010a60a397d9b"))
    #expect(irk.ah(0x708194) == 0x0DFBAA)
    #expect(irk.resolves(BluetoothAddress(rawValue: 0x708194_0DFBAA)))
    #expect(!irk.resolves(BluetoothAddress(rawValue: 0x708194_0DFBAB)))
}

@Test(arguments: [0 as UInt32, 1, 0x12345678, 0xFFFF_FFFF])
func madeAddressesAreResolvableAndResolveOnlyWithTheirKey(random: UInt32) throws {
    let irk = try #require(IdentityResolvingKey(hex: "0123456789abcdef0123456789abcdef"))
    let other = try #require(IdentityResolvingKey(hex: "0123456789abcdef0123456789abcdee"))
    let address = irk.address(random: random)
    #expect(RandomAddressKind(address) == .resolvable)
    #expect(irk.resolves(address))
    #expect(!other.resolves(address))
}

@Test func keysParseOnlyFromThirtyTwoHexDigits() {
    #expect(IdentityResolvingKey(hex: "0123456789ABCDEF0123456789abcdef")?.hex == "0123456789abcdef0123456789abcdef")
    #expect(IdentityResolvingKey(hex: "0123") == nil)
    #expect(IdentityResolvingKey(hex: "0123456789abcdef0123456789abcdeg") == nil)
}
