import BLE
import Foundation
import Testing

// `whereabouts decode` as a real process on BlueZ's own EIR payloads
// (Tests/BLETests/Fixtures/bluez-eir): every decoded AD field is printed, and the fields
// scripts already read keep their names.

/// The payloads and what BlueZ's unit/test-eir.c expects of them.
private func bluezPayloads() throws -> [[String: Any]] {
    let text = try String(contentsOf: fixtures.appendingPathComponent("bluez-eir/test-eir.jsonl"), encoding: .utf8)
    return try text.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:] }
}

private func payload(_ device: String) throws -> [UInt8] {
    let line = try #require(try bluezPayloads().first { $0["device"] as? String == device })
    return try #require(Hex.bytes(line["ad_hex"] as? String ?? ""))
}

/// Runs `whereabouts decode ARGUMENTS` with `input` on standard input; exit status and the
/// JSON objects it printed, one a line.
private func decode(_ arguments: [String], input: String = "") async throws -> (status: Int32?, objects: [[String: Any]], stderr: String) {
    let run = try EdgeProcess(["decode"] + arguments, tool: "whereabouts")
    if !input.isEmpty { run.write(input) }
    run.closeInput()
    let status = await run.exitStatus()
    let objects = try run.stdout.split(separator: "\n").map {
        try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
    }
    return (status, objects, run.stderr)
}

/// A legacy LE Advertising Report event with one report of `data`, as H4 hex.
private func h4(_ data: [UInt8], address: UInt64 = 0xC0FF_EE00_0001, rssi: Int8 = -61) -> String {
    var event: [UInt8] = []
    AdvertisingReport.appendLegacyEvent(eventType: 0, addressType: .randomDevice, address: BluetoothAddress(rawValue: address),
                                        data: data, rssi: rssi, to: &event)
    return Hex.string([HCIPacketType.event.rawValue] + event)
}

private func uuids(_ object: [String: Any]) -> [String] {
    (object["services"] as? [[String: Any]] ?? []).compactMap { $0["uuid"] as? String }
}

@Suite(.timeLimit(.minutes(3))) struct DecodeCommandTests {
    /// `--ad` on every payload: each field as test-eir.c expects it of BlueZ's parser (its 0
    /// flags and 127 TX power mean "not sent", printed here as null).
    @Test func everyBlueZPayloadDecodesAsBlueZExpects() async throws {
        let payloads = try bluezPayloads()
        #expect(payloads.count == 18)
        for line in payloads {
            let device = line["device"] as? String ?? "?"
            let bluez = try #require(line["bluez"] as? [String: Any])
            let run = try await decode(["--ad", line["ad_hex"] as? String ?? ""])
            #expect(run.status == 0, "\(device): \(run.stderr)")
            let out = try #require(run.objects.first, "\(device): no output")
            #expect(run.objects.count == 1)
            #expect(uuids(out) == bluez["uuids"] as? [String], "\(device)")
            let flags = bluez["flags"] as? Int ?? -1, tx = bluez["tx_power"] as? Int ?? -1
            #expect(out["flags"] as? Int == (flags == 0 ? nil : flags) && (flags != 0 || out["flags"] is NSNull), "\(device) \(out)")
            #expect(out["tx_power_level"] as? Int == (tx == 127 ? nil : tx) && (tx != 127 || out["tx_power_level"] is NSNull), "\(device)")
            let names = out["names"] as? [[String: Any]] ?? []
            if let name = bluez["name"] as? String {
                #expect(names.first?["text"] as? String == name, "\(device) \(names)")
                #expect(names.first?["complete"] as? Bool == bluez["name_complete"] as? Bool, "\(device)")
            } else {
                #expect(names.isEmpty, "\(device)")
            }
            let msd = (out["manufacturer_data"] as? [[String: Any]] ?? []).map { "\($0["company"] ?? "") \($0["data"] ?? "")" }
            let wantMSD = (line["manufacturer_data"] as? [[String: Any]] ?? []).map { "\($0["company"] ?? "") \($0["data"] ?? "")" }
            #expect(msd == wantMSD, "\(device)")
            let sd = (out["service_data"] as? [[String: Any]] ?? []).map { "\($0["uuid"] ?? "") \($0["data"] ?? "")" }
            let wantSD = (line["service_data"] as? [[String: Any]] ?? []).map { "\($0["uuid"] ?? "") \($0["data"] ?? "")" }
            #expect(sd == wantSD, "\(device)")
            #expect(out["malformed"] == nil && out["ad_error"] == nil, "\(device)")
            // The fields scripts relied on before are all still there.
            for key in ["tx_power", "data", "ad", "id", "kind", "frame"] { #expect(out[key] != nil, "\(device) lost \(key)") }
        }
    }

    @Test func macBookAirPrintsItsServicesAndApple() async throws {
        let run = try await decode(["--ad", Hex.string(try payload("MacBook Air"))])
        let out = try #require(run.objects.first)
        #expect(out["name"] as? String == "Marcel’s MacBook Air")
        #expect(uuids(out).first == "00001112-0000-1000-8000-00805f9b34fb" && uuids(out).count == 8)
        let services = out["services"] as? [[String: Any]] ?? []
        #expect(services.allSatisfy { $0["bits"] as? Int == 16 && $0["complete"] as? Bool == true })
        let apple = (out["manufacturer_data"] as? [[String: Any]])?.first
        #expect(apple?["company"] as? Int == 0x004C && apple?["data"] as? String == "014d6163426f6f6b416972332c31")
        #expect((out["ad"] as? [[Any]])?.map { $0.first as? Int } == [9, 3, 255])
    }

    /// `--hex`, standard input and `--btsnoop` print the same fields as `--ad`, after the
    /// report's address and RSSI.
    @Test func everyInputPrintsTheFields() async throws {
        let scale = try payload("Wahoo Scale"), uri = try payload("UriBeacon"), cookoo = try payload("COOKOO watch")
        let hex = try await decode(["--hex", h4(scale)])
        let one = try #require(hex.objects.first)
        #expect(hex.status == 0 && one["addr"] as? String == "c0:ff:ee:00:00:01" && one["rssi"] as? Int == -61)
        #expect(uuids(one) == ["00001901-0000-1000-8000-00805f9b34fb"] && one["flags"] as? Int == 6, "\(one)")
        #expect((one["manufacturer_data"] as? [[String: Any]])?.first?["data"] as? String == "009c")

        let stdin = try await decode([], input: [h4(uri), "> " + h4(cookoo)].joined(separator: "\n") + "\n")
        #expect(stdin.status == 0 && stdin.objects.count == 2, "\(stdin.stderr)")
        let beacon = try #require(stdin.objects.first)
        #expect(beacon["line"] as? Int == 1 && uuids(beacon) == ["0000fed8-0000-1000-8000-00805f9b34fb"])
        let data = (beacon["service_data"] as? [[String: Any]])?.first
        #expect(data?["uuid"] as? String == "0000fed8-0000-1000-8000-00805f9b34fb" && data?["bits"] as? Int == 16)
        #expect(data?["data"] as? String == "002000626c75657a08")
        #expect(uuids(stdin.objects[1]) == ["00001802-0000-1000-8000-00805f9b34fb", "0000180a-0000-1000-8000-00805f9b34fb"])
        #expect((stdin.objects[1]["services"] as? [[String: Any]])?.allSatisfy { $0["complete"] as? Bool == false } == true)

        var capture = BtsnoopWriter(datalink: .h4)
        for (i, data) in [scale, uri, cookoo].enumerated() {
            capture.append(.event, Array(try #require(Hex.bytes(h4(data))).dropFirst()), unixMicroseconds: 1_764_410_000_000_000 + Int64(i))
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("decode-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).btsnoop")
        try Data(capture.bytes).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let file = try await decode(["--btsnoop", path.path])
        #expect(file.status == 0 && file.objects.map { $0["record"] as? Int } == [0, 1, 2], "\(file.stderr)")
        #expect(file.objects.map { $0["name"] as? String } == ["Wahoo Scale v1.3", nil, "COOKOO watch"])
        #expect(file.objects.map(uuids) == [uuids(one), uuids(beacon), uuids(stdin.objects[1])])
    }

    /// A UUID list one byte short, a name that is not UTF-8 and a length running past the end:
    /// marked, not fatal, and the rest still printed.
    @Test func badStructuresAreMarked() async throws {
        // Mio Alpha with its 16-bit list given 3 bytes, then an invalid UTF-8 name, then a lying length.
        let bad = "02010604020d1806" + "05094142ff43" + "09ff4c00"
        let run = try await decode(["--ad", bad])
        #expect(run.status == 0, "\(run.stderr)")
        let out = try #require(run.objects.first)
        #expect(out["flags"] as? Int == 6 && uuids(out).isEmpty)
        let malformed = out["malformed"] as? [[String: Any]] ?? []
        #expect(malformed.count == 1 && malformed.first?["type"] as? Int == 2 && malformed.first?["offset"] as? Int == 3, "\(out)")
        #expect(malformed.first?["hex"] as? String == "0d1806")
        let name = (out["names"] as? [[String: Any]])?.first
        #expect(name?["text"] as? String == "AB" && name?["truncated"] as? Bool == true && name?["hex"] as? String == "4142ff43")
        #expect(out["name"] == nil)  // as before: the top-level name is only ever valid UTF-8
        #expect((out["ad_error"] as? [String: Any])?["offset"] as? Int == 14, "\(out)")
    }
}
