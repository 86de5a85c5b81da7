import BLE
import Testing

/// Frames built from the Eddystone, iBeacon and AltBeacon specifications' byte layouts.
@Suite struct BeaconFrameTests {
    typealias B = EventBuilder

    private func report(_ data: [UInt8], addressType: UInt8 = 1, address: UInt64 = 0xC1_22_33_44_55_66) throws -> AdvertisingReport {
        let (reports, error) = AdvertisingReport.decode(h4: B.legacyEvent([B.legacyReport(type: 3, addressType: addressType, address: address, data: data, rssi: -70)]))
        #expect(error == nil)
        return try #require(reports.first)
    }

    @Test func eddystoneUIDMakesAnId() throws {
        let namespace: [UInt8] = [0x8b, 0x0c, 0xa7, 0x50, 0xe7, 0xa7, 0x4e, 0x14, 0xbd, 0x99]
        let instance: [UInt8] = [0x09, 0x54, 0x71, 0xa2, 0x2b, 0xa2]
        let r = try report(B.eddystone(0x00, [0xEE] + namespace + instance + [0, 0]))
        guard case .eddystoneUID(let uid)? = r.frame else { Issue.record("no UID: \(String(describing: r.frame))"); return }
        #expect(uid.txPowerAt0m == -18)
        #expect(r.identity?.id == "eddystone:8b0ca750e7a74e14bd99-095471a22ba2")
        #expect(r.identity?.kind == "eddystone")
        #expect(r.txPower == -59)  // 0 m power less the 41 dB Eddystone puts between 0 m and 1 m
        #expect(r.summary.beacon == .eddystoneUID)
    }

    @Test(arguments: [
        ([0x01] + Array("google".utf8) + [0x00], "https://www.google.com/"),
        ([0x02] + Array("goo.gl/S6zT6P".utf8), "http://goo.gl/S6zT6P"),
        ([0x03] + Array("example".utf8) + [0x08] + Array("/x?a=1".utf8), "https://example.org/x?a=1"),
        ([0x00, 0x77] + [0x0D], "http://www.w.gov"),
    ] as [([UInt8], String)])
    func eddystoneURLExpands(encoded: [UInt8], url: String) throws {
        let r = try report(B.eddystone(0x10, [0xF6] + encoded))
        guard case .eddystoneURL(let frame)? = r.frame else { Issue.record("no URL frame"); return }
        #expect(frame.url == url)
        #expect(frame.txPowerAt0m == -10)
        #expect(r.txPower == -51)
    }

    @Test func eddystoneURLWithReservedBytesHasNoText() throws {
        let reservedScheme = try report(B.eddystone(0x10, [0xF6, 0x04] + Array("a".utf8)))
        let reservedByte = try report(B.eddystone(0x10, [0xF6, 0x02, 0x61, 0x20]))
        for r in [reservedScheme, reservedByte] {
            guard case .eddystoneURL(let frame)? = r.frame else { Issue.record("no URL frame"); continue }
            #expect(frame.url == nil)
        }
    }

    @Test func urlAndTelemetryFramesMakeNoIdOfTheirOwn() throws {
        let rotating = try report(B.eddystone(0x10, [0xF6, 0x03, 0x61]), address: 0x41_00_00_00_00_01)
        #expect(rotating.identity == nil)
        let staticAddress = try report(B.eddystone(0x20, [0x00, 0x0B, 0xB8, 0x18, 0x80, 0, 0, 0x01, 0, 0, 0, 0x02, 0]))
        #expect(staticAddress.identity == .mac(BluetoothAddress(rawValue: 0xC1_22_33_44_55_66)))
        #expect(staticAddress.identity?.id == "mac:c1:22:33:44:55:66")
    }

    @Test func plainTelemetry() throws {
        let r = try report(B.eddystone(0x20, [0x00, 0x0B, 0xB8, 0x18, 0x80, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x58]))
        guard case .eddystoneTLM(.plain(let tlm))? = r.frame else { Issue.record("no TLM"); return }
        #expect(tlm.batteryMillivolts == 3000)
        #expect(tlm.temperature == 24.5)
        #expect(tlm.advertisingCount == 256)
        #expect(tlm.uptimeDeciseconds == 600)
        #expect(r.txPower == nil)
        let unsupported = try report(B.eddystone(0x20, [0x00, 0x00, 0x00, 0x80, 0x00] + [UInt8](repeating: 0, count: 8)))
        guard case .eddystoneTLM(.plain(let none))? = unsupported.frame else { Issue.record("no TLM"); return }
        #expect(none.temperature == nil && none.batteryMillivolts == 0)
    }

    @Test func encryptedTelemetry() throws {
        let etlm: [UInt8] = Array(1...12)
        let r = try report(B.eddystone(0x20, [0x01] + etlm + [0xAB, 0xCD, 0x12, 0x34]))
        guard case .eddystoneTLM(.encrypted(let e))? = r.frame else { Issue.record("no eTLM"); return }
        #expect(e.etlm == etlm)
        #expect(e.salt == 0xABCD && e.check == 0x1234)
    }

    @Test func eddystoneEID() throws {
        let r = try report(B.eddystone(0x30, [0xE7, 1, 2, 3, 4, 5, 6, 7, 8]), address: 0x7F_00_00_00_00_01)
        guard case .eddystoneEID(let eid)? = r.frame else { Issue.record("no EID"); return }
        #expect(eid.eid == 0x0102_0304_0506_0708)
        #expect(eid.txPowerAt0m == -25)
        #expect(r.identity == nil)  // a resolvable private address and an ephemeral id: not a device yet
        #expect(r.header.randomKind == .resolvable)
    }

    @Test func shortEddystoneFramesAreNotFrames() throws {
        let r = try report(B.eddystone(0x00, [0xEE, 1, 2, 3]))
        #expect(r.frame == nil)
        #expect(r.summary.beacon == nil)
        #expect(r.adError == nil)
    }

    @Test func iBeaconWithPublicAddress() throws {
        let uuid: [UInt8] = [0xf7, 0x82, 0x6d, 0xa6, 0x4f, 0xa2, 0x4e, 0x98, 0x80, 0x24, 0xbc, 0x5b, 0x71, 0xe0, 0x89, 0x3e]
        let data = B.ad(0x01, [0x06]) + B.ad(0xFF, [0x4C, 0x00, 0x02, 0x15] + uuid + [0x00, 0x01, 0x00, 0x2A, 0xC5])
        let r = try report(data, addressType: 0)
        #expect(r.identity?.id == "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42")
        #expect(r.txPower == -59)
        #expect(r.header.randomKind == nil)
    }

    @Test(arguments: [
        (UInt64(0xC0_00_00_00_00_01), RandomAddressKind.staticAddress, true),
        (UInt64(0x40_00_00_00_00_01), .resolvable, false),
        (UInt64(0x00_00_00_00_00_01), .nonResolvable, false),
        (UInt64(0x80_00_00_00_00_01), .reserved, false),
    ])
    func randomAddressKinds(address: UInt64, kind: RandomAddressKind, hasId: Bool) throws {
        let r = try report(B.ad(0x01, [0x06]), addressType: 1, address: address)
        #expect(r.header.randomKind == kind)
        #expect((r.identity != nil) == hasId)
    }
}
