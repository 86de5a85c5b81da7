import BLE
import Foundation

/// The edge's CPU per 1,000 adverts, and the share of one core it needs.
struct EdgeFigures {
    var rate: Double
    var window: Double
    var cpuSeconds: Double
    var perThousand: Double { cpuSeconds / (rate * window) * 1_000 }
    var coreShare: Double { cpuSeconds / window }
}

/// The edge CPU bar: the real `whereabouts-edge` replays a generated capture of iBeacon
/// adverts at a fixed rate (`--replay --speed 1`) into a private broker; its CPU time is read
/// from /proc/<pid>/stat over a window in the middle of the replay, after start-up.
/// `partitions`: the edge's `partitions` (its 200 iBeacons then spread over that many topics).
func measureEdge(_ plan: BenchPlan, partitions: Int = 1) throws -> EdgeFigures {
    let scale = plan.scale
    let directory = NSTemporaryDirectory() + "whereabouts-edge-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let capture = directory + "/adverts.btsnoop"
    let lead = 1.0
    try Data(edgeCapture(rate: scale.edgeRate, seconds: scale.edgeSeconds + 2 * lead)).write(to: URL(fileURLWithPath: capture))
    let broker = try PrivateBroker(directory: directory)
    defer { broker.stop() }
    let edge = try ChildProcess(plan.bin + "/whereabouts-edge",
                                // P = 1 without the flag, so that `--bin` can still measure an edge older than it.
                                ["--node", "bench-edge", "--broker", broker.url, "--replay", capture, "--speed", "1"]
                                    + (partitions == 1 ? [] : ["--partitions", String(partitions)]),
                                name: "edge")
    defer { edge.stop(grace: 2) }
    usleep(useconds_t(lead * 1e6))
    let start = (wallSeconds(), edge.cpuSeconds)
    usleep(useconds_t(scale.edgeSeconds * 1e6))
    let end = (wallSeconds(), edge.cpuSeconds)
    guard let cpu0 = start.1, let cpu1 = end.1 else { throw BenchError("the edge exited early (replay of \(capture))") }
    return EdgeFigures(rate: scale.edgeRate, window: end.0 - start.0, cpuSeconds: cpu1 - cpu0)
}

/// The edge's cost of partitioning: P = 1 and P = 16 in the same run.
func runEdgePartitionsBench(_ plan: BenchPlan) {
    for p in [1, 16] {
        do {
            let e = try measureEdge(plan, partitions: p)
            print("edge-partitions: P = \(p): \(decimal(e.perThousand, 5)) CPU-s per 1,000 adverts at \(decimal(e.rate, 0)) adverts/s "
                  + "(\(decimal(e.coreShare * 100, 2)) % of one core)")
        } catch {
            print("edge-partitions: P = \(p): failed: \(error)")
        }
    }
}

func runEdgeBench(_ plan: BenchPlan) {
    do {
        let e = try measureEdge(plan)
        print("edge: \(decimal(e.rate, 0)) adverts/s replayed for \(decimal(e.window, 1)) s: \(decimal(e.cpuSeconds, 3)) CPU-s, "
              + "\(decimal(e.perThousand, 5)) CPU-s per 1,000 adverts (bar < 0.01), \(decimal(e.coreShare * 100, 2)) % of one core")
    } catch {
        print("edge: failed: \(error)")
    }
}

/// A btsnoop capture of `rate` legacy advertising reports per second for `seconds`: 200
/// iBeacons with public addresses, round robin, RSSI wandering between −90 and −50 dBm.
func edgeCapture(rate: Double, seconds: Double) -> [UInt8] {
    var writer = BtsnoopWriter()
    var event: [UInt8] = []
    let start = Int64(wallSeconds() * 1e6)
    let count = Int(rate * seconds)
    for i in 0..<count {
        let beacon = i % 200
        var data: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15]
        data += [0xF7, 0x82, 0x6D, 0xA6, 0x4F, 0xA2, 0x4E, 0x98, 0x80, 0x24, 0xBC, 0x5B, 0x71, 0xE0, 0x89, 0x3E]
        data += [0x00, 0x01, UInt8(beacon >> 8), UInt8(beacon & 0xFF), 0xC5]  // major 1, minor, −59 dBm at 1 m
        event.removeAll(keepingCapacity: true)
        AdvertisingReport.appendLegacyEvent(eventType: 0x03, addressType: .publicDevice,
                                            address: BluetoothAddress(rawValue: 0xC23A_6B00_0000 | UInt64(beacon)),
                                            data: data, rssi: Int8(-50 - (i * 7) % 41), to: &event)
        writer.append(.event, event, unixMicroseconds: start + Int64(Double(i) / rate * 1e6))
    }
    return writer.bytes
}
