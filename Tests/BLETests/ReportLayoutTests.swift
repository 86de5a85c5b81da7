import BLE
import Testing

/// Multi-report legacy events and extended reports, built from the Core spec layouts.
@Suite struct ReportLayoutTests {
    typealias B = EventBuilder

    @Test func severalLegacyReportsInOneEvent() throws {
        let a = B.legacyReport(type: 0, addressType: 0, address: 0xAABBCCDDEEFF, data: B.ad(0x01, [6]), rssi: -50)
        let b = B.legacyReport(type: 4, addressType: 1, address: 0xC0FFEE000001, data: B.ad(0x09, [0x41]), rssi: -90)
        let (reports, error) = AdvertisingReport.decode(h4: B.legacyEvent([a, b]))
        #expect(error == nil)
        #expect(reports.map(\.header.address.description) == ["aa:bb:cc:dd:ee:ff", "c0:ff:ee:00:00:01"])
        #expect(reports.map(\.header.rssi) == [-50, -90])
        #expect(reports[1].header.isScanResponse && !reports[0].header.isScanResponse)
        #expect(reports.map(\.header.eventType) == [0, 4])
    }

    @Test func truncatedSecondReportKeepsTheFirst() {
        let a = B.legacyReport(address: 1, data: [], rssi: -50)
        var packet = B.legacyEvent([a, B.legacyReport(address: 2, data: [2, 1, 6], rssi: -60)])
        packet.removeLast(2)
        packet[2] -= 2
        let (reports, error) = AdvertisingReport.decode(h4: packet)
        #expect(reports.count == 1)
        #expect(error?.kind == .truncated)
    }

    @Test func eventLengthMustMatch() {
        var packet = B.legacyEvent([B.legacyReport(address: 1, data: [], rssi: -50)])
        packet.append(0)
        #expect(AdvertisingReport.decode(h4: packet).error == DecodeError(.lengthMismatch, at: 2))
        packet.removeLast(2)
        #expect(AdvertisingReport.decode(h4: packet).error == DecodeError(.truncated, at: 2))
    }

    @Test func nonAdvertisingPacketsGiveNothing() {
        let commandComplete: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
        let aclData: [UInt8] = [0x02, 0x40, 0x20, 0x00, 0x00]
        let connectionComplete: [UInt8] = [0x04, 0x3E, 0x02, 0x01, 0x00]
        for packet in [commandComplete, aclData, connectionComplete] {
            let (reports, error) = AdvertisingReport.decode(h4: packet)
            #expect(reports.isEmpty && error == nil)
        }
        #expect(AdvertisingReport.decode(h4: [0x09, 0x00]).error?.kind == .badPacketType)
    }

    @Test func extendedReportHeader() throws {
        // Connectable, scannable, directed, legacy clear; data status incomplete-truncated.
        let eventType: UInt16 = 0x0007 | 2 << 5
        let packet = B.extendedEvent([B.extendedReport(eventType: eventType, addressType: 0, address: 0x001122334455,
                                                       primaryPHY: 3, secondaryPHY: 2, sid: 5, txPower: -4, rssi: -77,
                                                       interval: 0x0640, directType: 1, direct: 0x4A0000000002,
                                                       data: B.ad(0x01, [6]) + B.ad(0x0A, [0x08]))])
        let report = try #require(AdvertisingReport.decode(h4: packet).reports.first)
        let h = report.header
        #expect(h.format == .extended && h.eventType == eventType)
        #expect(h.isDirected && !h.isScanResponse)
        #expect(h.dataStatus == .truncated)
        #expect(h.primaryPHY == 3 && h.secondaryPHY == 2 && h.sid == 5)
        #expect(h.reportedTxPower == -4 && h.rssi == -77 && h.periodicInterval == 0x0640)
        #expect(h.directAddressType == .randomDevice && h.directAddress == BluetoothAddress(rawValue: 0x4A0000000002))
        #expect(report.txPower == 8)  // the AD TX Power Level comes before the header's
        #expect(report.identity?.id == "mac:00:11:22:33:44:55")
    }

    @Test func extendedLegacyPDUBitAndMissingRSSI() throws {
        let packet = B.extendedEvent([B.extendedReport(eventType: 0x0013, address: 0xD00000000001, txPower: 127, rssi: 127, data: [])])
        let h = try #require(AdvertisingReport.decode(h4: packet).reports.first).header
        #expect(h.format == .extended && h.eventType == 0x0013)
        #expect(h.rssi == nil && h.reportedTxPower == nil && h.directAddress == nil)
    }

    @Test func fragmentsAreJoinedPerAddressAndSID() throws {
        let name = Array("a long name split over fragments".utf8)
        let whole = B.ad(0x01, [6]) + B.ad(0x09, name)
        let first = Array(whole[..<10]), second = Array(whole[10..<25]), third = Array(whole[25...])
        let more: UInt16 = 1 << 5
        var reassembler = ExtendedReassembler()
        var out: [AdvertisingReport] = []
        for (status, sid, piece) in [(more, 1, first), (0, 2, B.ad(0x01, [4])), (more, 1, second), (0, 1, third)] {
            let packet = B.extendedEvent([B.extendedReport(eventType: status, address: 0xC00000000009, sid: UInt8(sid), data: piece)])
            for report in AdvertisingReport.decode(h4: packet).reports {
                if let done = reassembler.add(report) { out.append(done) }
            }
        }
        #expect(out.count == 2)
        #expect(out.first?.header.sid == 2 && out.first?.fragments == 1)  // another set passes through untouched
        let joined = try #require(out.last)
        #expect(joined.data == whole && joined.fragments == 3 && joined.header.dataStatus == .complete)
        #expect(joined.structures.last?.field == .localName(LocalName(bytes: name), complete: true))
        #expect(reassembler.pendingCount == 0)
    }

    @Test func truncatedChainEndsTruncatedAndOverflowIsCapped() throws {
        var reassembler = ExtendedReassembler(maximumPending: 2)
        let more: UInt16 = 1 << 5, truncated: UInt16 = 2 << 5
        let head = try #require(AdvertisingReport.decode(h4: B.extendedEvent([B.extendedReport(eventType: more, address: 7, data: [2, 1, 6])])).reports.first)
        let tail = try #require(AdvertisingReport.decode(h4: B.extendedEvent([B.extendedReport(eventType: truncated, address: 7, data: [3])])).reports.first)
        #expect(reassembler.add(head) == nil)
        let closed = reassembler.add(tail)
        let joined = try #require(closed)
        #expect(joined.header.dataStatus == .truncated && joined.data == [2, 1, 6, 3])
        // A chain that never ends is cut at the spec's 1650 bytes and marked truncated.
        let chunk = [UInt8](repeating: 0, count: 200)
        let big = try #require(AdvertisingReport.decode(h4: B.extendedEvent([B.extendedReport(eventType: more, address: 8, data: chunk)])).reports.first)
        var last: AdvertisingReport?
        for _ in 0..<9 where last == nil { last = reassembler.add(big) }
        #expect(last?.data.count == ExtendedReassembler.maximumLength && last?.header.dataStatus == .truncated)
    }
}
