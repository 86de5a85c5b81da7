import BLE
import Crypto
@testable import Edge
import Testing
import Wire

/// The Core spec's sample key (Vol 3 Part H Appendix D.7) and an unrelated one.
private let known = IRKEntry(name: "phone-jane", key: IRKEntry.key(hex: "ec0234a357c8ad05341010a60a397d9b") ?? [])
private let stranger = IRKEntry(name: "stranger", key: IRKEntry.key(hex: "00112233445566778899aabbccddeeff") ?? [])

/// A resolvable private address made with `entry`'s key from 22 random bits, as a phone makes it.
private func rpa(_ entry: IRKEntry, _ random: UInt32) throws -> BluetoothAddress {
    let prand = random & 0x3F_FFFF | 0x40_0000
    let ah = try ResolvingHash(irk: entry.key)
    return BluetoothAddress(rawValue: UInt64(prand) << 24 | UInt64(ah(prand)))
}

@Suite("Resolving phones' rotating addresses with configured IRKs")
struct IRKResolverTests {
    @Test func theIdSpellsTheKeyInLowerCaseHex() {
        #expect(known.deviceID == "irk:ec0234a357c8ad05341010a60a397d9b")
        #expect(IRKEntry(flag: "Jane's phone:EC0234A357C8AD05341010A60A397D9B")?.deviceID == known.deviceID)
        #expect(IRKEntry(flag: "Jane's phone:EC0234A357C8AD05341010A60A397D9B")?.name == "Jane's phone")
        #expect(IRKEntry(flag: "ec0234a357c8ad05341010a60a397d9b") == nil)
        #expect(IRKEntry(flag: "x:ec0234a357c8ad05341010a60a397d9") == nil)
        #expect(IRKEntry(flag: "x:ec0234a357c8ad05341010a60a397d9g") == nil)
        #expect(!"\(known)".contains("ec02"))
    }

    @Test(arguments: [0 as UInt32, 1, 0x12345678, 0xFFFF_FFFF])
    func addressesResolveOnlyWithTheKeyThatMadeThem(random: UInt32) throws {
        let resolver = try IRKResolver(keys: [known])
        #expect(resolver.resolve(try rpa(known, random), type: .randomDevice) == 0)
        #expect(resolver.resolve(try rpa(stranger, random), type: .randomDevice) == nil)
        let both = try IRKResolver(keys: [stranger, known])
        #expect(both.resolve(try rpa(known, random), type: .randomDevice) == 1)
        #expect(both.resolve(try rpa(stranger, random), type: .randomDevice) == 0)
    }

    @Test func theSpecSampleAddressResolves() throws {
        let resolver = try IRKResolver(keys: [known])
        #expect(resolver.resolve(BluetoothAddress(rawValue: 0x708194_0DFBAA), type: .randomDevice) == 0)
        #expect(resolver.resolve(BluetoothAddress(rawValue: 0x708194_0DFBAB), type: .randomDevice) == nil)
    }

    @Test func onlyRandomResolvableAddressesAreTried() throws {
        let resolver = try IRKResolver(keys: [known])
        let address = try rpa(known, 7)
        // The same bits as a public or an identity address are no RPA.
        #expect(resolver.resolve(address, type: .publicDevice) == nil)
        #expect(resolver.resolve(address, type: .randomIdentity) == nil)
        // A non-resolvable private address (top bits 00) with a hash that would match.
        let nrpa = BluetoothAddress(rawValue: address.rawValue & 0x3FFF_FFFF_FFFF)
        #expect(resolver.resolve(nrpa, type: .randomDevice) == nil)
        #expect(resolver.attempts == 0)
    }

    @Test func eachAddressCostsAESOnceUntilTheCacheIsFull() throws {
        let resolver = try IRKResolver(keys: [stranger, known], cacheLimit: 3)
        let mine = try rpa(known, 1), theirs = try rpa(IRKEntry(name: "x", key: Array(repeating: 9, count: 16)), 2)
        for _ in 0..<100 {
            #expect(resolver.resolve(mine, type: .randomDevice) == 1)
            #expect(resolver.resolve(theirs, type: .randomDevice) == nil)
        }
        #expect(resolver.attempts == 2)
        _ = resolver.resolve(try rpa(known, 3), type: .randomDevice)
        _ = resolver.resolve(try rpa(known, 4), type: .randomDevice)  // full: cleared first
        #expect(resolver.resolve(mine, type: .randomDevice) == 1)
        #expect(resolver.attempts == 5)
    }

    @Test func thePipelinePublishesResolvedPhonesAndDropsOtherRotatingAddresses() throws {
        var readings: [Reading] = []
        let pipeline = Pipeline(rules: ReadingFilter.Rules(), counters: EdgeCounters(), printer: nil,
                                resolver: try IRKResolver(keys: [known]), deliver: { r, _ in readings.append(r) })
        let first = try rpa(known, 0x1111), second = try rpa(known, 0x2222), other = try rpa(stranger, 0x1111)
        let nrpa = BluetoothAddress(rawValue: 0x1234_5678_9ABC)
        let heard: [(BluetoothAddress, Int8)] = [(first, -60), (other, -61), (nrpa, -62), (second, -63), (first, -64)]
        for (i, (address, rssi)) in heard.enumerated() {
            var packet = [HCIPacketType.event.rawValue]
            AdvertisingReport.appendLegacyEvent(eventType: 0, addressType: .randomDevice, address: address,
                                                data: [0x02, 0x01, 0x1A], rssi: rssi, to: &packet)
            packet.withUnsafeBytes { pipeline.handle(h4: $0, at: 100 + Double(i)) }
        }
        #expect(readings.map(\.id) == Array(repeating: "irk:ec0234a357c8ad05341010a60a397d9b", count: 3))
        #expect(readings.map(\.rssi) == [-60, -63, -64])
        #expect(readings.map(\.t) == [100, 103, 104])
        #expect(readings.allSatisfy { $0.kind == .irk })
        #expect(readings.map(\.mac) == [first.description, second.description, first.description])
    }

    /// Review of edgecli: reports without RSSI went through the id cache and the resolver
    /// (AES) though they never become readings, unless --print shows them.
    @Test func reportsWithoutRSSICostNoResolutionWhenNothingPrints() throws {
        let resolver = try IRKResolver(keys: [known])
        var readings: [Reading] = []
        let pipeline = Pipeline(rules: ReadingFilter.Rules(), counters: EdgeCounters(), printer: nil,
                                resolver: resolver, deliver: { r, _ in readings.append(r) })
        var packet = [HCIPacketType.event.rawValue]
        AdvertisingReport.appendLegacyEvent(eventType: 0, addressType: .randomDevice, address: try rpa(known, 7),
                                            data: [0x02, 0x01, 0x1A], rssi: nil, to: &packet)
        packet.withUnsafeBytes { pipeline.handle(h4: $0, at: 1) }
        #expect(resolver.attempts == 0)
        #expect(readings.isEmpty)
    }

    @Test func excludeGlobsApplyToResolvedIds() throws {
        var readings: [Reading] = []
        let pipeline = Pipeline(rules: ReadingFilter.Rules(exclude: [Glob("irk:*")]), counters: EdgeCounters(), printer: nil,
                                resolver: try IRKResolver(keys: [known]), deliver: { r, _ in readings.append(r) })
        var packet = [HCIPacketType.event.rawValue]
        AdvertisingReport.appendLegacyEvent(eventType: 0, addressType: .randomDevice, address: try rpa(known, 5),
                                            data: [UInt8](), rssi: -50, to: &packet)
        packet.withUnsafeBytes { pipeline.handle(h4: $0, at: 1) }
        #expect(readings.isEmpty)
    }
}
