import Testing
@testable import HCI

/// Command packets byte for byte as the Core spec lays them out (Vol 4 Part E 5.4.1, 7.8),
/// the same bytes `hcitool cmd 0x08 0x000b …` sends.
@Suite struct CommandTests {
    @Test func scanParametersPassiveByDefault() {
        #expect(HCICommand.leSetScanParameters(ScanParameters()).packet ==
                [0x01, 0x0B, 0x20, 0x07, 0x00, 0x60, 0x00, 0x60, 0x00, 0x00, 0x00])
    }

    @Test func scanParametersActiveOnRequest() {
        let p = ScanParameters(mode: .active, interval: 0x0010, window: 0x0008)
        #expect(HCICommand.leSetScanParameters(p).packet == [0x01, 0x0B, 0x20, 0x07, 0x01, 0x10, 0x00, 0x08, 0x00, 0x00, 0x00])
    }

    @Test(arguments: [true, false])
    func scanEnableNeverFiltersDuplicates(on: Bool) {
        #expect(HCICommand.leSetScanEnable(on).packet == [0x01, 0x0C, 0x20, 0x02, on ? 1 : 0, 0x00])
        #expect(HCICommand.leSetExtendedScanEnable(on).packet == [0x01, 0x42, 0x20, 0x06, on ? 1 : 0, 0, 0, 0, 0, 0])
    }

    @Test func extendedScanParametersOnTheOneMegabitPHY() {
        let packet = HCICommand.leSetExtendedScanParameters(ScanParameters(mode: .active)).packet
        #expect(packet == [0x01, 0x41, 0x20, 0x08, 0x00, 0x00, 0x01, 0x01, 0x60, 0x00, 0x60, 0x00])
    }

    @Test func informationalOpcodes() {
        #expect(HCICommand.readLocalSupportedCommands.opcode == 0x1002)
        #expect(HCICommand.readLocalSupportedFeatures.packet == [0x01, 0x03, 0x10, 0x00])
    }

    @Test func adapterNames() throws {
        #expect(try AdapterName("hci0") == .index(0))
        #expect(try AdapterName("hci12") == .index(12))
        #expect(try AdapterName("00:aa:01:00:00:00") == .address("00:AA:01:00:00:00"))
        for bad in ["hci", "hcix", "eth0", "00:AA:01", "00:AA:01:00:00:0G", "", "hci99999"] {
            #expect(throws: HCIError.self) { try AdapterName(bad) }
        }
    }

    @Test func backoffDoublesToThirtySecondsAndResets() {
        var b = Backoff()
        #expect((0..<7).map { _ in b.delay() } == [1, 2, 4, 8, 16, 30, 30])
        b.reset()
        #expect(b.delay() == 1)
    }
}
