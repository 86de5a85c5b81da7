import BLE
import Testing

/// BlueZ's own EIR and advertising payloads (unit/test-eir.c, see Fixtures/bluez-eir/README.md),
/// each asserted field by field against what BlueZ's test expects of its parser, and the
/// manufacturer and service data against the bytes as read by hand.
@Suite struct BlueZEIRTests {
    /// One payload of Fixtures/bluez-eir/test-eir.jsonl.
    struct Payload {
        let device: String
        let data: [UInt8]
        let bluez: [String: Any]
        let manufacturerData: [[String: Any]]
        let serviceData: [[String: Any]]

        init(_ line: [String: Any]) {
            device = line["device"] as? String ?? "?"
            data = [UInt8](hex: line["ad_hex"] as? String ?? "")
            bluez = line["bluez"] as? [String: Any] ?? [:]
            manufacturerData = line["manufacturer_data"] as? [[String: Any]] ?? []
            serviceData = line["service_data"] as? [[String: Any]] ?? []
        }

        static var all: [Payload] { get throws { try Fixtures.jsonLines("bluez-eir/test-eir.jsonl").map(Payload.init) } }
    }

    @Test func everyPayloadOfTestEIRIsRead() throws {
        let payloads = try Payload.all
        // test-eir.c's 18 payloads with a device behind them (its /eir/basic is all zeros).
        #expect(payloads.count == 18)
        #expect(payloads.allSatisfy { !$0.data.isEmpty && !$0.bluez.isEmpty })
    }

    @Test func everyFieldIsWhatBlueZExpects() throws {
        for p in try Payload.all {
            let (structures, error) = ADStructure.parse(p.data)
            #expect(error == nil, "\(p.device)")
            let fields = ADFields(structures)
            // BlueZ's eir_data says 0 for "no flags" and 127 for "no TX power".
            let flags = p.bluez["flags"] as? Int ?? -1
            #expect(fields.flags.map(Int.init) == (flags == 0 ? nil : flags), "\(p.device) flags")
            let tx = p.bluez["tx_power"] as? Int ?? -1
            #expect(fields.txPowerLevel.map(Int.init) == (tx == 127 ? nil : tx), "\(p.device) tx power")
            if let name = p.bluez["name"] as? String {
                #expect(fields.names.first?.name.readableText == name, "\(p.device) name")
                #expect(fields.names.first?.complete == p.bluez["name_complete"] as? Bool, "\(p.device) name complete")
            } else {
                #expect(fields.names.isEmpty, "\(p.device) has no name")
            }
            #expect(fields.services.map(\.uuid.description) == p.bluez["uuids"] as? [String], "\(p.device) uuids")
            #expect(fields.manufacturerData.map { [Int($0.company): Hex.string($0.data)] }
                        == p.manufacturerData.map { [$0["company"] as? Int ?? -1: $0["data"] as? String ?? ""] }, "\(p.device) msd")
            #expect(fields.serviceData.map { [$0.uuid.description: Hex.string($0.data)] }
                        == p.serviceData.map { [$0["uuid"] as? String ?? "": $0["data"] as? String ?? ""] }, "\(p.device) sd")
            #expect(fields.malformed.isEmpty, "\(p.device) \(fields.malformed)")
        }
    }

    /// The MacBook Air spelled out, so a reader sees what the fixture holds.
    @Test func macBookAir() throws {
        let p = try #require(try Payload.all.first { $0.device == "MacBook Air" })
        let fields = ADFields(ADStructure.parse(p.data).structures)
        #expect(fields.name == "Marcel’s MacBook Air")
        #expect(fields.names == [ADFields.Name(name: LocalName(bytes: Array("Marcel’s MacBook Air".utf8)), complete: true)])
        #expect(fields.services.count == 8 && fields.services.allSatisfy { $0.bits == 16 && $0.complete })
        #expect(fields.services.first?.uuid == UUID128(short: 0x1112))
        #expect(fields.manufacturerData == [ADFields.ManufacturerData(company: 0x004C, data: [0x01] + Array("MacBookAir3,1".utf8))])
        #expect(fields.flags == nil && fields.txPowerLevel == nil && fields.appearance == nil && fields.serviceData.isEmpty)
    }

    @Test func widthsAndCompletenessAreKept() throws {
        let all = try Payload.all
        let fuelband = try #require(all.first { $0.device == "Nike+ FuelBand" })
        let bh907 = try #require(all.first { $0.device == "Nokia Reaction BH-907" })
        let fuel = ADFields(ADStructure.parse(fuelband.data).structures)
        #expect(fuel.services.map(\.bits) == [128] && fuel.services.map(\.complete) == [true])
        #expect(fuel.txPowerLevel == 0)
        let nokia = ADFields(ADStructure.parse(bh907.data).structures)
        #expect(nokia.services.allSatisfy { $0.bits == 16 && !$0.complete } && nokia.services.count == 7)
        #expect(nokia.txPowerLevel == 4)
    }

    /// Names that are not clean UTF-8: BlueZ shows the valid part before the fault; `string`
    /// (what the aggregator names a device by) stays nil for them.
    @Test func brokenNamesShowTheirReadablePart() throws {
        for device in ["invalid UTF-8 name", "UTF-16 name", "ISO-2022-JP name"] {
            let p = try #require(try Payload.all.first { $0.device == device })
            let name = try #require(ADFields(ADStructure.parse(p.data).structures).names.first?.name)
            #expect(name.readableCount < name.bytes.count, "\(device)")
            #expect(name.readableText == p.bluez["name"] as? String, "\(device)")
        }
        #expect(LocalName(bytes: [0x41, 0x00, 0x42]).string == "A\u{0}B")
        #expect(LocalName(bytes: [0x41, 0x00, 0x42]).readableText == "A")
        #expect(LocalName(bytes: Array("Café".utf8)).readableCount == 5)
    }

    /// test-eir.c's /eir/basic: an EIR block of zeros holds nothing.
    @Test func zerosHoldNoFields() {
        let (structures, error) = ADStructure.parse([UInt8](repeating: 0, count: 240))
        #expect(error == nil && structures.isEmpty)
        #expect(ADFields(structures) == ADFields([]))
    }

    /// Every cut of every payload: no crash, an error inside the cut, and the fields found a
    /// prefix of the whole payload's (a structure cut short is dropped, not half read).
    @Test func truncatedPayloadsNeverCrashAndKeepWhatCameBefore() throws {
        var cuts = 0, overruns = 0, inside = 0
        for p in try Payload.all {
            let structures = ADStructure.parse(p.data).structures
            let whole = ADFields(structures)
            // A cut after a structure's length byte and before its last byte lies to the walk:
            // as many such cuts as the length bytes add up to (598 over the 18 payloads).
            inside += structures.reduce(0) { $0 + $1.value.count + 1 }
            for length in 0..<p.data.count {
                let (structures, error) = ADStructure.parse(Array(p.data[..<length]))
                if let error { #expect(error.offset < length && error.kind == .adLengthOverrun); overruns += 1 }
                let fields = ADFields(structures)
                #expect(whole.services.starts(with: fields.services), "\(p.device) cut at \(length)")
                #expect(whole.names.starts(with: fields.names) && whole.manufacturerData.starts(with: fields.manufacturerData))
                #expect(fields.malformed.isEmpty)
                cuts += 1
            }
        }
        #expect(cuts == 1_951 && overruns == inside && inside == 598, "\(cuts) cuts, \(overruns) overruns, \(inside)")
    }

    /// A list one byte short of whole items is marked malformed, the rest still decoded.
    @Test func aUUIDListOfTheWrongLengthIsMalformed() {
        // Mio Alpha with its 16-bit list given 3 bytes: [03 02 0d 18 06] becomes [04 02 0d 18 06].
        let data: [UInt8] = [0x02, 0x01, 0x06, 0x04, 0x02, 0x0D, 0x18, 0x06, 0x06, 0x09, 0x41, 0x4C, 0x50, 0x48, 0x41]
        let (structures, error) = ADStructure.parse(data)
        #expect(error == nil)
        let fields = ADFields(structures)
        #expect(fields.flags == 6 && fields.services.isEmpty && fields.name == "ALPHA")
        #expect(fields.malformed == [ADStructure(type: 0x02, value: [0x0D, 0x18, 0x06], offset: 3)])
    }

    @Test func thirtyTwoBitAndOtherFieldsAreGathered() {
        let data: [UInt8] = [0x05, 0x05, 0x01, 0x02, 0x03, 0x04, 0x03, 0x19, 0xC1, 0x03, 0x04, 0x20, 0x0A, 0x0B, 0x0C,
                             0x05, 0x12, 0x7F, 0x01, 0x8F, 0x01]
        let fields = ADFields(ADStructure.parse(data).structures)
        #expect(fields.services == [ADFields.Service(uuid: UUID128(short: 0x0403_0201), bits: 32, complete: true)])
        #expect(fields.services.first?.uuid.description == "04030201-0000-1000-8000-00805f9b34fb")
        #expect(fields.appearance == 0x03C1)
        // Three bytes of a 32-bit service data UUID: malformed. The connection interval range is kept raw.
        #expect(fields.malformed.map(\.type) == [0x20])
        #expect(fields.other.map(\.type) == [0x12])
    }
}
