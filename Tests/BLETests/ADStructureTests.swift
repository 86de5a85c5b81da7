import BLE
import Testing

@Suite struct ADStructureTests {
    typealias B = EventBuilder

    @Test func fieldsDecode() {
        let uuid128: [UInt8] = Array(0..<16)
        let data = B.ad(0x01, [0x1A]) + B.ad(0x09, Array("Kitchen".utf8)) + B.ad(0x0A, [0xF4])
            + B.ad(0x03, [0x0F, 0x18, 0x0A, 0x18]) + B.ad(0x05, [0x01, 0x02, 0x03, 0x04]) + B.ad(0x07, uuid128)
            + B.ad(0x16, [0x1A, 0x18, 0xAA]) + B.ad(0x20, [1, 2, 3, 4, 0xBB]) + B.ad(0x21, uuid128 + [0xCC])
            + B.ad(0xFF, [0x59, 0x00, 0x01]) + B.ad(0x19, [0xC1, 0x03]) + B.ad(0x2A, [9])
        let (structures, error) = ADStructure.parse(data)
        #expect(error == nil)
        let expected128 = UUID128(high: 0x0f0e_0d0c_0b0a_0908, low: 0x0706_0504_0302_0100)
        #expect(structures.map(\.field) == [
            .flags(0x1A),
            .localName(LocalName(bytes: Array("Kitchen".utf8)), complete: true),
            .txPowerLevel(-12),
            .serviceUUIDs16([0x180F, 0x180A], complete: true),
            .serviceUUIDs32([0x0403_0201], complete: true),
            .serviceUUIDs128([expected128], complete: true),
            .serviceData16(uuid: 0x181A, data: [0xAA]),
            .serviceData32(uuid: 0x0403_0201, data: [0xBB]),
            .serviceData128(uuid: expected128, data: [0xCC]),
            .manufacturerData(company: 0x0059, data: [0x01]),
            .appearance(0x03C1),
            .other(type: 0x2A, value: [9]),
        ])
        #expect(expected128.description == "0f0e0d0c-0b0a-0908-0706-050403020100")
        #expect(UUID128(short: 0x180F).description == "0000180f-0000-1000-8000-00805f9b34fb")
    }

    @Test func invalidUTF8NameIsKeptAsBytes() {
        let bytes: [UInt8] = [0x41, 0xC3, 0x28, 0xFF]
        let (structures, _) = ADStructure.parse(B.ad(0x08, bytes))
        guard case .localName(let name, complete: false)? = structures.first?.field else { Issue.record("no name"); return }
        #expect(name.bytes == bytes)
        #expect(name.string == nil)
        #expect(LocalName(bytes: Array("Café".utf8)).string == "Café")
    }

    @Test func wrongLengthsAreMalformedNotFatal() {
        let (structures, error) = ADStructure.parse(B.ad(0x03, [1, 2, 3]) + B.ad(0x0A, []) + B.ad(0x19, [1]) + B.ad(0x01, [6]))
        #expect(error == nil)
        #expect(structures.map(\.field) == [.malformed(type: 3, value: [1, 2, 3]), .malformed(type: 0x0A, value: []),
                                            .malformed(type: 0x19, value: [1]), .flags(6)])
    }

    @Test func lyingLengthKeepsStructuresBeforeIt() {
        let data = B.ad(0x01, [0x06]) + B.ad(0x0A, [0x04]) + [0x09, 0x09, 0x41, 0x42]
        let (structures, error) = ADStructure.parse(data, origin: 100)
        #expect(structures.map(\.type) == [0x01, 0x0A])
        #expect(error == DecodeError(.adLengthOverrun, at: 106))
        // The fast path's summary keeps what it found before the fault.
        let summary = data.withUnsafeBytes { ADSummary($0) }
        #expect(summary.txPowerLevel == 4)
        #expect(summary.error == DecodeError(.adLengthOverrun, at: 6))
    }

    @Test func zeroLengthEndsTheWalk() {
        let data = B.ad(0x01, [0x06]) + [0x00, 0xFF, 0xFF, 0xFF]
        let (structures, error) = ADStructure.parse(data)
        #expect(structures.count == 1)
        #expect(error == nil)
    }

    @Test func lyingLengthInsideAReportIsReportedWithThePacketOffset() throws {
        let data: [UInt8] = [0x02, 0x01, 0x06, 0x1F, 0xFF, 0x4C]
        let packet = B.legacyEvent([B.legacyReport(address: 0x112233445566, data: data, rssi: -40)])
        let (reports, error) = AdvertisingReport.decode(h4: packet)
        #expect(error == nil)  // the report itself is sound: address and RSSI are good
        let report = try #require(reports.first)
        // Indicator, code, length, subevent, count (0...4), 8 report bytes and the data
        // length (5...13): the data starts at 14, and its lying length byte is its 4th.
        #expect(report.adError == DecodeError(.adLengthOverrun, at: 14 + 3))
        #expect(report.structures.count == 1)
        #expect(report.header.rssi == -40)
    }
}
