import Foundation
import Positioning
import SiteModel
import Wire

/// The shard bench: the positioning engine of one shard and of two side by side, in process,
/// at hospital scale (docs/operations.md, A hospital): 50,000 tags each advertising once a
/// second, heard by five nodes, a solve per tag every half second.
///
/// Each shard is an `Engine` on a thread of its own, fed only its devices' readings (those
/// whose partition of 16 it owns, as its subscriptions would bring); MQTT and storage are
/// left out, so this is the engine's share of a shard's cost. Its CPU is split into what the
/// readings cost (`ingest`) and what the solves cost (`advance`).
struct ShardFigures {
    var shards: Int
    var devices: Int
    var seconds: Double
    /// Per shard: readings, solves, CPU seconds in ingest and in advance.
    var readings: [Int]
    var solves: [Int]
    var ingestCPU: [Double]
    var solveCPU: [Double]

    var totalRate: Double { Double(readings.reduce(0, +)) / seconds }
    func perShardRate(_ i: Int) -> Double { Double(readings[i]) / (ingestCPU[i] + solveCPU[i]) }
    func solveRate(_ i: Int) -> Double { Double(solves[i]) / (ingestCPU[i] + solveCPU[i]) }
}

/// One shard's engine and reading stream, replayed in passes `duration` apart.
private final class ShardLoad: @unchecked Sendable {
    let engine: Engine
    let stream: [(node: Int32, reading: Reading)]
    let duration: Double
    var readings = 0, ingestCPU = 0.0, solveCPU = 0.0
    private var output: [EngineOutput] = []

    init(site: Site, stream: [(node: Int32, reading: Reading)], duration: Double) {
        var options = EngineOptions()
        options.reportsHeldFixes = false
        engine = Engine(site: site, locator: .default, options: options)
        self.stream = stream
        self.duration = duration
        output.reserveCapacity(16_384)
    }

    /// One pass `offset` seconds on; readings in steps of 100 ms of event time, each step's
    /// readings then an `advance` to its end, timed apart.
    func pass(offset: Double, measure: Bool) {
        guard let first = stream.first?.reading.t else { return }
        var i = 0, step = first + offset + 0.1
        while i < stream.count {
            let c0 = threadCPU()
            while i < stream.count, stream[i].reading.t + offset <= step {
                var r = stream[i].reading
                r.t += offset
                engine.ingest(nodeIndex: Int(stream[i].node), reading: r)
                i += 1
            }
            let c1 = threadCPU()
            engine.advance(to: step, into: &output)
            output.removeAll(keepingCapacity: true)
            let c2 = threadCPU()
            if measure { ingestCPU += c1 - c0; solveCPU += c2 - c1 }
            step += 0.1
        }
        if measure { readings += stream.count }
    }
}

/// The generated hospital floor: `BenchSite`'s grid of 8 m rooms, one node each.
private func hospitalSite(_ geometry: BenchSite) -> Site {
    var site = Site()
    var floor = Floor(id: "ground", name: "Ground", bounds: (Point3(0, 0, 0), Point3(geometry.width, geometry.depth, 3)))
    for r in 0..<geometry.rows {
        for c in 0..<geometry.columns {
            let x0 = Double(c) * geometry.cell, y0 = Double(r) * geometry.cell, x1 = x0 + geometry.cell, y1 = y0 + geometry.cell
            floor.rooms.append(Room(id: "r\(r)-\(c)", name: "Room \(r)-\(c)", points: [Point2(x0, y0), Point2(x1, y0), Point2(x1, y1), Point2(x0, y1)]))
        }
    }
    site.floors = [floor]
    site.positioning.absorption = 2.7
    for i in 0..<geometry.nodeCount {
        let p = geometry.nodePoint(i)
        site.nodes.append(Node(name: geometry.nodeName(i), point: Point3(p.x, p.y, geometry.nodeHeight)))
    }
    return site
}

/// Every device's readings over `duration` s: still devices (a hospital's tags mostly lie
/// still), one advert a second each, heard by the five nodes nearest it.
private func hospitalStream(_ geometry: BenchSite, devices: Int, heardBy: Int, duration: Double) -> [(device: Int, node: Int32, reading: Reading)] {
    var random = SystemRandomNumberGenerator()
    var out: [(device: Int, node: Int32, reading: Reading)] = []
    out.reserveCapacity(devices * heardBy * Int(duration))
    let start = 1_764_410_000.0
    for d in 0..<devices {
        let id = "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-\(d / 10_000)-\(d % 10_000)"
        let x = Double.random(in: 0.5..<(geometry.width - 0.5), using: &random), y = Double.random(in: 0.5..<(geometry.depth - 0.5), using: &random)
        let nearest = (0..<geometry.nodeCount).map { n -> (Int, Double) in
            let p = geometry.nodePoint(n)
            return (n, ((p.x - x) * (p.x - x) + (p.y - y) * (p.y - y) + 1.5 * 1.5).squareRoot())
        }.sorted { $0.1 < $1.1 }.prefix(heardBy)
        var t = start + Double.random(in: 0..<1, using: &random)
        while t < start + duration {
            for (n, distance) in nearest {
                let rssi = -59 - 27 * log10(distance) + Double.random(in: -4...4, using: &random)
                out.append((d, Int32(n), Reading(id: id, rssi: Int(rssi.rounded()), tx: -59, t: t, kind: .ibeacon)))
            }
            t += 1
        }
    }
    out.sort { $0.reading.t < $1.reading.t }
    return out
}

/// Runs 1 and then 2 shards over the same devices, each shard its own thread, for about
/// `seconds` of wall time each.
func measureShards(devices: Int, nodes: Int, seconds: Double, log: (String) -> Void) -> [ShardFigures] {
    let geometry = BenchSite(nodes: nodes), site = hospitalSite(geometry)
    let duration = 6.0
    let stream = hospitalStream(geometry, devices: devices, heardBy: 5, duration: duration)
    let partitions = Partitioning(count: 16)!
    var figures: [ShardFigures] = []
    for count in [1, 2] {
        // Each device's shard from its id's partition, as the edges' topics would sort it.
        let owner = (0..<devices).map { d in
            partitions.partition(of: "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-\(d / 10_000)-\(d % 10_000)") % count
        }
        let loads = (0..<count).map { s in
            ShardLoad(site: site, stream: stream.filter { owner[$0.device] == s }.map { ($0.node, $0.reading) }, duration: duration)
        }
        for load in loads { load.pass(offset: 0, measure: false) }   // every device placed once
        let solvesBefore = loads.map { $0.engine.solves }
        let group = DispatchGroup(), wallStart = wallSeconds()
        for load in loads {
            group.enter()
            Thread {
                var pass = 1.0
                while wallSeconds() - wallStart < seconds { load.pass(offset: pass * duration, measure: true); pass += 1 }
                group.leave()
            }.start()
        }
        group.wait()
        let f = ShardFigures(shards: count, devices: devices, seconds: wallSeconds() - wallStart, readings: loads.map(\.readings),
                             solves: zip(loads, solvesBefore).map { $0.engine.solves - $1 }, ingestCPU: loads.map(\.ingestCPU),
                             solveCPU: loads.map(\.solveCPU))
        for i in 0..<count { log(shardLine(f, i)) }
        log("shards: \(count) shard\(count == 1 ? "" : "s") together: \(thousands(f.totalRate)) readings/s by the wall clock")
        figures.append(f)
    }
    return figures
}

private func shardLine(_ f: ShardFigures, _ i: Int) -> String {
    let cpu = f.ingestCPU[i] + f.solveCPU[i]
    let perSolve = f.solveCPU[i] / Double(max(f.solves[i], 1)) * 1e6, perReading = f.ingestCPU[i] / Double(max(f.readings[i], 1)) * 1e9
    return "shards: shard \(i)/\(f.shards) of \(f.devices) devices: \(thousands(f.perShardRate(i))) readings/s and "
        + "\(thousands(f.solveRate(i))) solves/s per CPU-second (bar ≥ 250k readings/s); "
        + "\(decimal(f.solveCPU[i] / cpu * 100, 0)) % of its CPU in solves (\(decimal(perSolve, 1)) µs each), "
        + "ingest \(decimal(perReading, 0)) ns a reading"
}

func runShardBench(_ plan: BenchPlan) {
    let smoke = plan.smoke
    _ = measureShards(devices: plan.devices ?? (smoke ? 500 : 50_000), nodes: plan.nodes ?? (smoke ? 16 : 400),
                      seconds: smoke ? 1 : 8, log: { print($0); fflush(nil) })
}

private func threadCPU() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
