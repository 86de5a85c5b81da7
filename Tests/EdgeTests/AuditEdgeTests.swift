import BLE
@testable import Edge
import Foundation
import Testing
import YAML
import MQTT

// Audit, 2026-11-30: the edge on bad input.

/// `--replay` naming no capture but an endless file (`/dev/zero`, a pipe that never closes)
/// read it whole, until the process died of memory; the header would have said at once that
/// it is no btsnoop capture. Run in a child with its address space capped 256 MiB above what
/// it uses at the start.
@Test func replayOfAnEndlessFileIsRefusedAtItsHeader() async {
    await #expect(processExitsWith: .success) {
        var limit = rlimit()
        let statm = (try? YAML.readHead("/proc/self/statm", count: 64)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let pages = Int(statm.split(separator: " ").first ?? "") ?? 0
        limit.rlim_cur = rlim_t(pages * Int(sysconf(Int32(_SC_PAGESIZE))) + 256 << 20)
        limit.rlim_max = limit.rlim_cur
        setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit)
        do {
            _ = try ReplaySource(path: "/dev/zero", speed: 0, retime: false)
            exit(2)
        } catch {
            exit("\(error)".contains("not a usable btsnoop capture") ? 0 : 3)
        }
    }
}

/// The header check refuses what is not a capture and keeps what is.
@Test func replayChecksTheHeaderFirst() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("audit-edge-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let short = dir.appendingPathComponent("short"), text = dir.appendingPathComponent("text"), good = dir.appendingPathComponent("good")
    try Data("btsnoop".utf8).write(to: short)
    try Data(String(repeating: "not a capture\n", count: 100).utf8).write(to: text)
    try Data(BtsnoopWriter().bytes).write(to: good)
    #expect(throws: SourceError.self) { try ReplaySource(path: short.path, speed: 0, retime: false) }
    #expect(throws: SourceError.self) { try ReplaySource(path: text.path, speed: 0, retime: false) }
    #expect(throws: SourceError.self) { try ReplaySource(path: dir.appendingPathComponent("missing").path, speed: 0, retime: false) }
    _ = try ReplaySource(path: good.path, speed: 0, retime: false)
}

/// A source that, told to stop, still hands over the packets it was handling: a live adapter
/// or a replay sees `stop` only between packets.
private final class LateSource: ReportSource, @unchecked Sendable {
    let name = "late"
    private let told = DispatchSemaphore(value: 0)

    func run(_ sink: PacketSink) throws {
        told.wait()
        for i in 0..<3 {
            // LE Advertising Report: one ADV_IND from public address 00:00:00:00:00:0i, no data, -60 dBm.
            let packet: [UInt8] = [0x04, 0x3E, 12, 0x02, 0x01, 0x00, 0x00, UInt8(i), 0, 0, 0, 0, 0, 0x00, 0xC4]
            packet.withUnsafeBytes { sink.packet(h4: $0, at: 1_764_410_000 + Double(i)) }
        }
    }

    func stop() { told.signal() }
}

/// On SIGTERM the edge flushed and counted what was still waiting while the source thread
/// could still be handing over readings: those were neither published nor counted. Here no
/// broker listens, so all three readings the source delivers after `stop` must be reported
/// as not delivered.
@Test func readingsDeliveredWhileStoppingAreCounted() async throws {
    let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
        var config = EdgeConfig(node: "n", mqtt: MQTTOptions(broker: BrokerURL(host: "127.0.0.1", port: 9), clientID: "audit-late"))
        config.flushTimeout = 0.5
        let service = try EdgeService(config: config, source: LateSource(), version: "audit")
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) { kill(getpid(), SIGTERM) }
        _ = service.run()
    }
    let errors = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(errors.contains("3 readings not delivered"), "\(errors)")
}
