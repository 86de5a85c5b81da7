import BLE
import Testing

@Suite struct BtsnoopTests {
    private let packets: [(HCIPacketType, [UInt8])] = [
        (.command, [0x0B, 0x20, 0x07, 0x01, 0x10, 0x00, 0x10, 0x00, 0x00, 0x00]),
        (.event, [0x0E, 0x04, 0x01, 0x0B, 0x20, 0x00]),
        (.event, [0x3E, 0x0C, 0x02, 0x01, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x00, 0xC4]),
        (.acl, [0x40, 0x20, 0x01, 0x00, 0xAA]),
    ]

    @Test(arguments: [Btsnoop.Datalink.h4, .h1, .monitor])
    func writerOutputReadsBack(datalink: Btsnoop.Datalink) throws {
        var writer = BtsnoopWriter(datalink: datalink)
        let start: Int64 = 1_764_410_000_123_456
        for (i, (type, bytes)) in packets.enumerated() {
            writer.append(type, bytes, unixMicroseconds: start + Int64(i) * 1000, adapterIndex: 2)
        }
        let (readDatalink, records, error) = BtsnoopReader.records(in: writer.bytes)
        #expect(error == nil && readDatalink == datalink)
        #expect(records.count == packets.count)
        for (i, (record, (type, bytes))) in zip(records, packets).enumerated() {
            #expect(record.index == i)
            #expect(record.packetType == type)
            #expect(record.h4 == [type.rawValue] + bytes)
            #expect(record.timestamp - Btsnoop.unixEpochOffset == start + Int64(i) * 1000)
            #expect(record.unixTime == Double(start + Int64(i) * 1000) / 1e6)
            #expect(record.direction == (type == .command ? .sent : .received))
            #expect(record.adapterIndex == (datalink == .monitor ? 2 : 0))
        }
        let advertising = records.compactMap(\.h4).flatMap { AdvertisingReport.decode(h4: $0).reports }
        #expect(advertising.map(\.header.rssi) == [-60])
    }

    @Test func realCaptureRewritesToTheSameBytes() throws {
        let original = try Fixtures.bytes("horizon74_btsnoop_hci.log")
        let (_, records, error) = BtsnoopReader.records(in: original)
        #expect(error == nil && records.count == 2572)
        var writer = BtsnoopWriter(datalink: .h4)
        for r in records {
            let h4 = try #require(r.h4)
            writer.append(try #require(r.packetType), h4.dropFirst(), direction: r.direction,
                          unixMicroseconds: r.timestamp - Btsnoop.unixEpochOffset)
        }
        // Android sets command/event and direction flags as the writer does, and no drops.
        #expect(writer.bytes == original)
    }

    @Test func badFilesAreTypedErrors() {
        #expect(throws: DecodeError(.truncated, at: 3)) { try BtsnoopReader([0x62, 0x74, 0x73]) }
        #expect(throws: DecodeError(.notBtsnoop, at: 0)) { try BtsnoopReader([UInt8](repeating: 0x41, count: 16)) }
        var header = BtsnoopWriter(datalink: .h4).bytes
        header[15] = 0x01
        #expect(throws: DecodeError(.unsupportedBtsnoop, at: 12)) { try BtsnoopReader(header) }
        var writer = BtsnoopWriter(datalink: .h4)
        writer.append(.event, [0x0E, 0x00], unixMicroseconds: 0)
        let (_, records, error) = BtsnoopReader.records(in: Array(writer.bytes.dropLast()))
        #expect(records.isEmpty && error == DecodeError(.truncated, at: 20))
    }
}
