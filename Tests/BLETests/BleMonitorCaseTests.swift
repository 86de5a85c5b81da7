import BLE
import Foundation
import Testing

/// LE Meta events from the test suite of ble_monitor (Home Assistant), with the values its
/// tests assert.
@Suite struct BleMonitorCaseTests {
    private static func value(_ asserts: [String: Any], _ field: String) -> Any? {
        asserts["sensor_msg['\(field)']"] ?? asserts["tracker_msg['\(field)']"]
    }

    private static func beaconCases(_ type: String) throws -> [[String: Any]] {
        try Fixtures.bleMonitorCases.filter { ($0["test"] as? String ?? "").lowercased().contains(type) }
            .filter { $0["asserts"].map { ($0 as? [String: Any])?.isEmpty == false } ?? false }
    }

    @Test func iBeaconCasesGiveTheAssertedFields() throws {
        let cases = try Self.beaconCases("ibeacon").filter { ($0["asserts"] as? [String: Any])?.keys.contains { $0.contains("uuid") } == true }
        #expect(cases.count == 2)
        for c in cases { try check(c, kind: "iBeacon") }
    }

    @Test func altBeaconCasesGiveTheAssertedFields() throws {
        let cases = try Self.beaconCases("altbeacon")
        #expect(cases.count == 2)
        for c in cases { try check(c, kind: "altBeacon") }
    }

    private func check(_ c: [String: Any], kind: String) throws {
        let asserts = try #require(c["asserts"] as? [String: Any])
        let (reports, error) = AdvertisingReport.decode(h4: [UInt8](hex: try #require(c["h4_hex"] as? String)))
        #expect(error == nil)
        let report = try #require(reports.first)
        let mac = report.header.address.description.replacingOccurrences(of: ":", with: "").uppercased()
        #expect(mac == Self.value(asserts, "mac") as? String)
        #expect(report.header.rssi.map(Int.init) == Self.value(asserts, "rssi") as? Int)
        let uuid = Self.value(asserts, "uuid") as? String
        let major = Self.value(asserts, "major") as? Int
        let minor = Self.value(asserts, "minor") as? Int
        let power = Self.value(asserts, "measured power") as? Int
        switch report.frame {
        case .iBeacon(let f)? where kind == "iBeacon":
            #expect(f.uuid.hex == uuid && Int(f.major) == major && Int(f.minor) == minor && Int(f.measuredPower) == power)
        case .altBeacon(let f)? where kind == "altBeacon":
            #expect(f.id1.hex == uuid && Int(f.id2) == major && Int(f.id3) == minor && Int(f.referenceRSSI) == power)
        default:
            Issue.record("\(c["test"] ?? "?"): no \(kind) frame in \(String(describing: report.frame))")
        }
        let dashed = try #require(asserts.first { $0.key.hasPrefix("str(UUID(") }?.value as? String)
        #expect(report.identity?.id == "\(kind):\(dashed)-\(major ?? -1)-\(minor ?? -1)")
        #expect(report.txPower.map(Int.init) == power)
    }

    /// ble_monitor takes these three macs from the payload, not the advertiser address.
    static let macFromPayload: Set<String> = ["test_Govee_H5178_sensor_1", "test_sonoff_s_mate", "test_sonoff_r5"]

    @Test func everyEventDecodesOrYieldsATypedError() throws {
        let cases = try Fixtures.bleMonitorCases
        #expect(cases.count == 285)
        var decoded = 0, failed = 0, rssiChecked = 0, macChecked = 0
        for c in cases {
            let (reports, error) = AdvertisingReport.decode(h4: [UInt8](hex: c["h4_hex"] as? String ?? ""))
            if error != nil { failed += 1 } else if reports.count == 1 { decoded += 1 }
            guard let report = reports.first, let asserts = c["asserts"] as? [String: Any] else { continue }
            if let rssi = Self.value(asserts, "rssi") as? Int {
                #expect(report.header.rssi.map(Int.init) == rssi, "\(c["test"] ?? "")")
                rssiChecked += 1
            }
            if let mac = Self.value(asserts, "mac") as? String, !Self.macFromPayload.contains(c["test"] as? String ?? "") {
                #expect(report.header.address.description.replacingOccurrences(of: ":", with: "").uppercased() == mac)
                macChecked += 1
            }
        }
        #expect(decoded + failed == 285)
        #expect(decoded == 285, "\(failed) events gave an error")
        #expect(rssiChecked >= 270 && macChecked >= 270)
    }

    @Test func extendedCasesCarryTheirHeaderFields() throws {
        let extended = try Fixtures.bleMonitorCases.filter { ($0["subevent"] as? Int) == 13 }
        #expect(extended.count == 9)
        for c in extended {
            let report = try #require(AdvertisingReport.decode(h4: [UInt8](hex: c["h4_hex"] as? String ?? "")).reports.first)
            #expect(report.header.format == .extended)
            #expect(report.header.dataStatus == .complete)
            #expect(report.header.primaryPHY == 1)
            #expect(report.header.sid == 0xFF)
            #expect(report.header.reportedTxPower == nil)
            #expect(report.adError == nil)
            #expect(!report.structures.isEmpty)
        }
    }
}
