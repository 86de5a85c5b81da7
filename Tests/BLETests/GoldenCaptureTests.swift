import BLE
import Foundation
import Testing

/// The real Android capture of a Horizon 7.4 AT treadmill and its neighbours, and its
/// golden decoding by two independent parsers.
@Suite struct GoldenCaptureTests {
    @Test func everyGoldenEventDecodesToExactlyItsReports() throws {
        let golden = try Fixtures.golden
        #expect(golden.count == 412)
        var matched = 0
        for event in golden {
            let packet = [UInt8](hex: try #require(event["h4_hex"] as? String))
            let expected = try #require(event["reports"] as? [[String: Any]])
            let (reports, error) = AdvertisingReport.decode(h4: packet)
            #expect(error == nil, "record \(event["record"] ?? "?")")
            guard reports.count == expected.count else { continue }
            if zip(reports, expected).allSatisfy(matches) { matched += 1 }
        }
        #expect(matched == 412, "\(matched) of \(golden.count) events matched")
    }

    private func matches(_ report: AdvertisingReport, _ golden: [String: Any]) -> Bool {
        let ad = report.structures.map { [Int($0.type), Hex.string($0.value)] as [AnyHashable] }
        let goldenAD = (golden["ad"] as? [[Any]] ?? []).map { pair in
            [pair.first as? Int ?? -1, pair.last as? String ?? ""] as [AnyHashable]
        }
        return report.header.address.description == golden["addr"] as? String
            && Int(report.header.addressType.rawValue) == golden["addr_type"] as? Int
            && Int(report.header.eventType) == golden["event_type"] as? Int
            && report.header.rssi.map(Int.init) == golden["rssi"] as? Int
            && Hex.string(report.data) == golden["data"] as? String
            && ad == goldenAD
            && report.adError == nil
    }

    @Test func btsnoopReaderFindsExactlyTheGoldenEvents() throws {
        let (datalink, records, error) = BtsnoopReader.records(in: try Fixtures.bytes("horizon74_btsnoop_hci.log"))
        #expect(error == nil)
        #expect(datalink == .h4)
        let advertising = records.filter { record in
            guard let h4 = record.h4 else { return false }
            return !AdvertisingReport.decode(h4: h4).reports.isEmpty
        }
        let golden = try Fixtures.golden
        #expect(advertising.count == golden.count)
        for (record, event) in zip(advertising, golden) {
            #expect(record.index == event["record"] as? Int)
            #expect(record.timestamp == (event["btsnoop_ts_us"] as? NSNumber)?.int64Value)
            #expect(abs(record.unixTime - (event["unix_ts"] as? Double ?? 0)) < 1e-6)
            #expect(record.h4.map(Hex.string) == event["h4_hex"] as? String)
            #expect(record.direction == .received)
        }
    }

    /// The edge's allocation-free path must agree with the full decoder on every real event.
    @Test func fastPathAgreesWithFullDecoder() throws {
        var checked = 0
        for packet in try Fixtures.goldenPackets {
            let full = AdvertisingReport.decode(h4: packet).reports
            var index = 0
            let count = try packet.withUnsafeBytes { raw in
                try AdvertisingDecoder.forEachReport(h4: raw) { view in
                    guard index < full.count else { return }
                    let report = full[index]
                    #expect(view.header == report.header)
                    #expect(Array(view.data) == report.data)
                    #expect(view.identity == report.identity)
                    #expect(view.txPower == report.txPower)
                    #expect(view.summary.beacon == report.frame?.kind)
                    index += 1
                }
            }
            #expect(count == full.count)
            checked += count
        }
        #expect(checked == 412)
    }

    @Test func theCaptureHoldsIBeaconsWithTheirIds() throws {
        var ids: Set<String> = []
        for packet in try Fixtures.goldenPackets {
            for report in AdvertisingReport.decode(h4: packet).reports {
                if case .iBeacon(let frame)? = report.frame {
                    #expect(report.identity?.kind == "ibeacon")
                    #expect(report.txPower == frame.measuredPower)
                    ids.insert(report.identity?.id ?? "")
                }
            }
        }
        // Record 133: 4c00 0215 494e54454c4c495f524f434b535f4857 5072 f2ff c2.
        #expect(ids.contains("iBeacon:494e5445-4c4c-495f-524f-434b535f4857-20594-62207"))
    }
}
