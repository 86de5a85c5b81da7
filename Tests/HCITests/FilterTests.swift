import Testing
@testable import HCI

/// The filter's bits as the kernel reads them (`net/bluetooth/hci_sock.c`).
@Suite struct FilterTests {
    @Test func scanningFilterBits() {
        let f = EventFilter.scanning
        #expect(f.typeMask == 0x10)
        #expect(f.eventMask.0 == 0x0000_C000)  // 0x0E, 0x0F
        #expect(f.eventMask.1 == 0x4000_0000)  // 0x3E
        #expect(f.opcode == 0)
    }

    @Test(arguments: [
        ("04 3E 03 02 01 00", true),  // LE Meta
        ("04 0E 04 01 0C 20 00", true),  // Command Complete
        ("04 0F 04 00 01 0C 20", true),  // Command Status
        ("04 02 01 00", false),  // Inquiry Result
        ("04 FD 06 01 00 04 00 00 00", false),  // stack internal
        ("02 00 20 00 00", false),  // ACL
        ("04", false),
    ])
    func scanningFilterPasses(packet: String, passes: Bool) {
        #expect(hex(packet).withUnsafeBytes { EventFilter.scanning.passes(h4: $0) } == passes)
    }

    @Test func deviceEventFilterSharesItsBitWith0x3D() {
        let f = EventFilter.deviceEvents
        #expect(f.eventMask == (0, 1 << 29))
        #expect(hex("04 FD 06 01 00 04 00 00 00").withUnsafeBytes { f.passes(h4: $0) })
        #expect(hex("04 3D 00").withUnsafeBytes { f.passes(h4: $0) })
        #expect(!hex("04 3E 00").withUnsafeBytes { f.passes(h4: $0) })
    }

    @Test func opcodeNarrowsCommandAnswers() {
        var f = EventFilter.scanning
        f.opcode = 0x200C
        #expect(hex("04 0E 04 01 0C 20 00").withUnsafeBytes { f.passes(h4: $0) })
        #expect(!hex("04 0E 04 01 0B 20 00").withUnsafeBytes { f.passes(h4: $0) })
        #expect(hex("04 3E 03 02 01 00").withUnsafeBytes { f.passes(h4: $0) })
        #expect(f != EventFilter.scanning)
    }

    @Test func monitorHeader() throws {
        let h = try #require(hex("03 00 01 00 2B 00").withUnsafeBytes { MonitorHeader($0) })
        #expect(h == MonitorHeader(opcode: MonitorHeader.eventPacket, index: 1, length: 43))
        #expect(hex("03 00 01 00 2B").withUnsafeBytes { MonitorHeader($0) } == nil)
    }
}
