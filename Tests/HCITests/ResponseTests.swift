import Testing
@testable import HCI

/// Answers captured from the kernel's btvirt controllers (`hcitool cmd` in the radio-test
/// guest): an LE-only controller (`btvirt -L`) and a Bluetooth 5.2 dual-mode one.
@Suite struct ResponseTests {
    static let leOnlyCommands = hex("""
        04 0E 44 01 02 10 00 20 00 80 00 00 C0 00 00 00 00 60 00 00 00 B8 02 00 \
        00 00 00 00 00 00 00 20 F7 FF E7 7F 00 00 00 00 30 FE 07 00 00 00 00 00 \
        00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
        """)
    static let dualModeCommands = hex("""
        04 0E 44 01 02 10 00 F3 BF F9 01 00 D8 E1 FF 3F 0F 64 1C C0 0F F8 A3 0C \
        E3 83 0F 18 00 04 04 20 F7 FF E7 7F 28 08 80 7C 30 FE 27 FE FF FF 04 00 \
        E0 FF FF 03 3C 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
        """)

    @Test func leOnlyControllerScansLegacy() throws {
        let answer = try #require(try Self.parse(Self.leOnlyCommands, 0x1002))
        #expect(answer.status == 0)
        let commands = try SupportedCommands(returned: answer.returned)
        #expect(commands.supports(SupportedCommands.Bit(octet: 26, bit: 2)))  // LE Set Scan Parameters
        #expect(!commands.supports(.leSetExtendedScanParameters))
        #expect(!commands.extendedScanning)
    }

    @Test func halfOfExtendedScanningIsNotEnough() throws {
        var octets = [UInt8](repeating: 0, count: 64)
        octets[37] = 0x20
        #expect(try !SupportedCommands(returned: octets).extendedScanning)
        octets[37] = 0x60
        #expect(try SupportedCommands(returned: octets).extendedScanning)
    }

    @Test func bluetooth5ControllerScansExtended() throws {
        let answer = try #require(try Self.parse(Self.dualModeCommands, 0x1002))
        #expect(try SupportedCommands(returned: answer.returned).extendedScanning)
    }

    @Test func localFeaturesSayLE() throws {
        // Features 0x00 0x00 0x00 0x00 0x60 …: LE supported, BR/EDR not (hciconfig -a).
        let answer = try #require(try Self.parse(hex("04 0E 0C 01 03 10 00 00 00 00 00 60 00 00 00"), 0x1003))
        #expect(try LocalFeatures(returned: answer.returned).leSupported)
        let bredr = try #require(try Self.parse(hex("04 0E 0C 01 03 10 00 FF FF 8F FE 1B FF 59 87"), 0x1003))
        #expect(try !LocalFeatures(returned: bredr.returned).leSupported)
    }

    @Test func failedStatusIsReported() throws {
        // LE Set Scan Parameters while scanning: Command Disallowed.
        let answer = try #require(try Self.parse(hex("04 0E 04 01 0B 20 0C"), 0x200B))
        #expect(answer.status == 0x0C)
        #expect(answer.returned.isEmpty)
    }

    @Test func commandStatusAnswersToo() throws {
        let answer = try #require(try Self.parse(hex("04 0F 04 12 01 0C 20"), 0x200C))
        #expect(answer.status == 0x12)
    }

    @Test func otherEventsAndOtherCommandsAreNotAnswers() throws {
        #expect(try Self.parse(hex("04 0E 04 01 0B 20 00"), 0x200C) == nil)
        #expect(try Self.parse(hex("04 3E 03 02 01 00"), 0x200C) == nil)
        #expect(try Self.parse(hex("02 00 20 00 00"), 0x200C) == nil)
    }

    @Test func lyingLengthsThrow() {
        #expect(throws: HCIError.self) { try Self.parse(hex("04 0E 05 01 0B 20 00"), 0x200B) }
        #expect(throws: HCIError.self) { try Self.parse(hex("04 0E 03 01 0B 20"), 0x200B) }
        #expect(throws: HCIError.self) { try SupportedCommands(returned: [0xFF, 0xFF]) }
        #expect(throws: HCIError.self) { try LocalFeatures(returned: []) }
    }

    @Test func adapterEventsFromTheKernel() {
        let down = hex("04 FD 06 01 00 04 00 02 00")
        #expect(down.withUnsafeBytes { AdapterEvent(h4: $0) } == AdapterEvent(kind: .down, index: 2))
        #expect(hex("04 FD 06 01 00 03 00 00 00").withUnsafeBytes { AdapterEvent(h4: $0) }?.kind == .up)
        #expect(hex("04 FD 06 01 00 09 00 00 00").withUnsafeBytes { AdapterEvent(h4: $0) } == nil)
        #expect(hex("04 FD 04 02 00 00 00").withUnsafeBytes { AdapterEvent(h4: $0) } == nil)
    }

    static func parse(_ bytes: [UInt8], _ opcode: UInt16) throws -> CommandResponse? {
        try bytes.withUnsafeBytes { try CommandResponse.parse(h4: $0, for: opcode) }
    }
}

func hex(_ text: String) -> [UInt8] {
    text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { UInt8($0, radix: 16) }
}

extension AdapterEvent {
    init(kind: Kind, index: UInt16) {
        var bytes: [UInt8] = [0x04, 0xFD, 0x06, 0x01, 0x00, UInt8(kind.rawValue), 0, UInt8(index & 0xFF), UInt8(index >> 8)]
        self = bytes.withUnsafeMutableBytes { AdapterEvent(h4: UnsafeRawBufferPointer($0))! }
    }
}
