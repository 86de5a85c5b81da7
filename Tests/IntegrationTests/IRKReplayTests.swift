import BLE
import Foundation
import MQTT
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A phone on rotating resolvable private addresses, simulated, and its node's capture replayed
/// by a real `whereabouts-edge` holding the phone's IRK: the edge names it as docs/protocol.md#device-ids does and
/// publishes exactly what the simulator says that node reports.
private let phoneKey = "ec0234a357c8ad05341010a60a397d9b"  // tools/sites/reference.yaml: phone-crossing

private let scenario = """
    seed: 5
    duration: 60s
    start: 1764410000
    devices:
      - phone: { name: phone-crossing, rotate: 15s }    # the site's key: four or five addresses
        interval_ms: 200
        path:
          - { at: [1.0, 1.0], dwell: 10s }
          - { at: [5.0, 3.0], dwell: 40s }
      - phone: { name: stranger, rotate: 20s }          # nobody's key: captured, never published
        interval_ms: 300
        path: [ { random_walk: west, for: 60s } ]
      - id: "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42"
        interval_ms: 500
        path: [ { at: [2.0, 2.0] } ]
    """

private func simulate(into dir: URL) throws {
    let scenarioFile = dir.appendingPathComponent("scenario.yaml")
    try scenario.write(to: scenarioFile, atomically: true, encoding: .utf8)
    let p = Process()
    p.executableURL = executable("whereabouts")
    p.arguments = ["simulate", "--site", packageRoot.appendingPathComponent("tools/sites/reference.yaml").path,
                   "--scenario", scenarioFile.path, "--out", dir.appendingPathComponent("sim").path]
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = pipe
    try runUnmasked(p)
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw HarnessError("simulate: \(String(decoding: output, as: UTF8.self))") }
}

/// The readings of `node` in the simulator's readings.jsonl, in order.
private func simulatedReadings(_ file: URL, node: String) throws -> [SeenReading] {
    let text = try String(contentsOf: file, encoding: .utf8)
    var out: [SeenReading] = []
    for line in text.split(separator: "\n") {
        guard let batch = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              batch["node"] as? String == node, let readings = batch["readings"] as? [[String: Any]] else { continue }
        for r in readings {
            guard let id = r["id"] as? String, let mac = r["mac"] as? String, let rssi = r["rssi"] as? Int,
                  let t = r["t"] as? Double, let kind = r["kind"] as? String else { throw HarnessError("bad reading \(r)") }
            out.append(SeenReading(id: id, mac: mac, rssi: rssi, tx: r["tx"] as? Int, t: t, kind: kind))
        }
    }
    return out
}

@Test(.timeLimit(.minutes(2)))
func aReplayedPhoneIsPublishedUnderItsIRKExactlyAsSimulated() async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("irk-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    try simulate(into: dir)
    let expected = try simulatedReadings(dir.appendingPathComponent("sim/readings.jsonl"), node: "sw")
    let phoneID = "irk:\(phoneKey)"
    let phone = expected.filter { $0.id == phoneID }
    #expect(phone.count > 100)
    #expect(Set(phone.map(\.mac)).count >= 4, "the phone rotated its address")
    #expect(phone.allSatisfy { $0.kind == "irk" })

    // The key comes from a file only its owner can read, beside one that resolves nothing here.
    let keys = dir.appendingPathComponent("irks.yaml")
    try "- { id: phone-crossing, key: \"\(phoneKey.uppercased())\" }\n- { id: someone-else, key: \"0123456789abcdef0123456789abcdef\" }\n"
        .write(to: keys, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keys.path)

    let broker = try Broker()
    let topics = NodeTopics(node: "sw")
    let collector = try Collector(broker: broker, filters: [topics.all])
    try await collector.ready()
    let edge = try EdgeProcess(["--node", "sw", "--broker", broker.url, "--replay", dir.appendingPathComponent("sim/sw.btsnoop").path,
                                "--speed", "0", "--qos", "1", "--irks-file", keys.path])
    #expect(await edge.exitStatus() == 0, "\(edge.stderr)")
    #expect(await collector.wait { text($0, topic: topics.status).last == "offline" })
    #expect(!edge.stderr.contains("warning"), "\(edge.stderr)")
    let readings = try deliveredBatches(collector.messages, topic: topics.readings).batches.flatMap(\.readings)
    #expect(readings.count == expected.count)
    #expect(sameReadings(readings, expected),
            "first difference: \(zip(readings, expected).first { !$0.matches($1) }.map { "\($0) vs \($1)" } ?? "count")")
    #expect(readings.filter { $0.id == phoneID }.count == phone.count)
    #expect(Set(readings.map(\.id)) == [phoneID, "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42"])
}

/// Without the key the same capture gives no phone readings at all: rotating addresses are
/// dropped, not published under their passing MAC.
@Test(.timeLimit(.minutes(2)))
func withoutTheKeyThePhoneIsDropped() async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("irk-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    try simulate(into: dir)
    let expected = try simulatedReadings(dir.appendingPathComponent("sim/readings.jsonl"), node: "se").filter { $0.kind != "irk" }
    let broker = try Broker()
    let topics = NodeTopics(node: "se")
    let collector = try Collector(broker: broker, filters: [topics.all])
    try await collector.ready()
    let edge = try EdgeProcess(["--node", "se", "--broker", broker.url, "--replay", dir.appendingPathComponent("sim/se.btsnoop").path,
                                "--speed", "0", "--qos", "1"])
    #expect(await edge.exitStatus() == 0, "\(edge.stderr)")
    #expect(await collector.wait { text($0, topic: topics.status).last == "offline" })
    let readings = try deliveredBatches(collector.messages, topic: topics.readings).batches.flatMap(\.readings)
    #expect(!expected.isEmpty)
    #expect(sameReadings(readings, expected))
    let adverts = try #require(telemetry(collector.messages, topic: topics.telemetry).last?["adverts"] as? Int)
    #expect(adverts > readings.count + 100, "the phones were heard, and dropped")
}

/// --print names an IRK-resolved phone by the id it is published under (`irk:<key hex>`), also
/// for a report without RSSI, which is printed though it never becomes a reading; an address
/// one bit off resolves to nothing and prints a null id. The Core spec's sample: key
/// ec0234a357c8ad05341010a60a397d9b makes 70:81:94:0d:fb:aa.
@Test(.timeLimit(.minutes(1)))
func printNamesAResolvedPhoneByItsIRKId() async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("irk-print-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let keys = dir.appendingPathComponent("irks.yaml")
    try "- { id: phone-jane, key: \"\(phoneKey)\" }\n".write(to: keys, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keys.path)
    let heard: [(UInt64, Int8?)] = [(0x708194_0DFBAA, -61), (0x708194_0DFBAA, nil), (0x708194_0DFBAB, -62)]
    let edge = try EdgeProcess(["--node", "desk", "--broker", "mqtt://127.0.0.1:1", "--stdin", "--print", "--irks-file", keys.path,
                                "--flush-timeout", "0"])
    for (address, rssi) in heard {
        var packet = [HCIPacketType.event.rawValue]
        AdvertisingReport.appendLegacyEvent(eventType: 0, addressType: .randomDevice, address: BluetoothAddress(rawValue: address),
                                            data: [0x02, 0x01, 0x1A], rssi: rssi, to: &packet)
        edge.write(packet.map { String(format: "%02x", $0) }.joined() + "\n")
    }
    edge.closeInput()
    #expect(await edge.exitStatus() == 0, "\(edge.stderr)")
    let printed = edge.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    #expect(printed.map { $0["mac"] as? String } == ["70:81:94:0d:fb:aa", "70:81:94:0d:fb:aa", "70:81:94:0d:fb:ab"], "\(edge.stdout)")
    #expect(printed.map { $0["id"] as? String } == ["irk:\(phoneKey)", "irk:\(phoneKey)", nil])
    #expect(printed.map { $0["kind"] as? String } == ["irk", "irk", nil])
    #expect(printed.map { $0["rssi"] as? Int } == [-61, nil, -62])
}
