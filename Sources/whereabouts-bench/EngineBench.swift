import CMallocCounter
import Foundation
import Positioning
import Wire
import SiteModel

/// SPEC §4 / issue 4: the positioning engine's readings per second on one core, in process
/// (no MQTT): `Engine.ingest` for every reading and `advance` every 100 ms of event time.
///
/// The site is generated: one 40 × 30 m floor of 20 rooms with walls and doors, 40 nodes on a
/// grid; 2,000 devices walk slowly, each heard by its 8 nearest nodes 5 times a second.
func runEngineBench(seconds: Double = 3) {
    let bench = EngineBenchSetup(devices: 2_000, hz: 5, heardBy: 8, duration: 20)
    let engine = Engine(site: bench.site)
    var output: [EngineOutput] = []
    output.reserveCapacity(8_192)
    var readings = 0, updates = 0, events = 0
    var pass = 0.0
    // Warm up one pass so links exist and buffers have grown, then time whole passes.
    var (r, u, e) = bench.feed(engine, offset: 0, output: &output)
    pass += 1
    let clock = ContinuousClock()
    let mallocsBefore = whereabouts_malloc_count()
    let start = clock.now
    let cpuStart = threadCPUSeconds()
    var elapsed = Duration.zero
    repeat {
        (r, u, e) = bench.feed(engine, offset: pass * bench.duration, output: &output)
        readings += r; updates += u; events += e
        pass += 1
        elapsed = start.duration(to: clock.now)
    } while elapsed < .seconds(seconds)
    let mallocs = whereabouts_malloc_count() - mallocsBefore
    let cpu = threadCPUSeconds() - cpuStart
    let secs = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print("engine: \(bench.site.nodes.count) nodes, \(bench.site.floors[0].rooms.count) rooms, \(engine.deviceCount) devices; "
          + "\(readings) readings, \(updates) position updates, \(events) room/zone events in \(fixed2(secs)) s on one thread")
    // The cores are shared: CPU time of this thread is the fairer measure of one core.
    print("engine: \(fixed2(Double(readings) / cpu / 1e6)) million readings/s per CPU-second of this thread (bar ≥ 1); "
          + "\(fixed2(Double(readings) / secs / 1e6)) million/s by the wall clock (\(fixed2(cpu)) s CPU)")
    print("engine: "
          + "\(fixed2(Double(updates) / secs / 1e3)) thousand solves/s, "
          + "\(String(format: "%.3f", Double(mallocs) / Double(max(readings, 1)))) allocations per reading")
}

private func fixed2(_ v: Double) -> String { String(format: "%.2f", v) }

/// CPU time consumed by the calling thread, in seconds.
private func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// A generated office and a pre-computed reading stream over `duration` seconds.
struct EngineBenchSetup {
    let site: Site
    let duration: Double
    /// (node index, reading) in time order; replayed with a time offset per pass.
    private var stream: [(node: Int, reading: Reading)] = []

    init(devices: Int, hz: Double, heardBy: Int, duration: Double) {
        self.duration = duration
        var site = Site()
        var floor = Floor(id: "office", name: "Office", bounds: (Point3(0, 0, 0), Point3(40, 30, 3)))
        for row in 0..<4 {
            for col in 0..<5 {
                let x0 = Double(col) * 8, y0 = Double(row) * 7.5
                floor.rooms.append(Room(id: "r\(row)\(col)", name: "Room \(row)\(col)",
                                        points: [Point2(x0, y0), Point2(x0 + 8, y0), Point2(x0 + 8, y0 + 7.5), Point2(x0, y0 + 7.5)]))
            }
        }
        for col in 1..<5 { floor.walls.append(Wall(points: [Point2(Double(col) * 8, 0), Point2(Double(col) * 8, 30)], attenuation: 4)) }
        for row in 1..<4 { floor.walls.append(Wall(points: [Point2(0, Double(row) * 7.5), Point2(40, Double(row) * 7.5)], attenuation: 4)) }
        site.floors = [floor]
        site.positioning.absorption = 2.7
        for i in 0..<40 {
            site.nodes.append(Node(name: "node\(i)", point: Point3(2.5 + Double(i % 8) * 5, 2 + Double(i / 8) * 6.5, 1 + Double(i % 3) * 0.5)))
        }
        site.zones = [Zone(id: "lobby", name: "Lobby", floor: "office", points: [Point2(0, 0), Point2(6, 0), Point2(6, 5), Point2(0, 5)])]
        self.site = site
        stream = Self.generate(site: site, devices: devices, hz: hz, heardBy: heardBy, duration: duration)
    }

    private static func generate(site: Site, devices: Int, hz: Double, heardBy: Int, duration: Double) -> [(node: Int, reading: Reading)] {
        var rng = SystemRandomNumberGenerator()
        var out: [(Int, Reading)] = []
        let ids = (0..<devices).map { "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-\($0)" }
        let start = 1_764_410_000.0
        for d in 0..<devices {
            var p = Point2(Double.random(in: 1...39, using: &rng), Double.random(in: 1...29, using: &rng))
            let heading = Double.random(in: 0..<(2 * .pi), using: &rng)
            var t = start + Double.random(in: 0..<(1 / hz), using: &rng)
            while t < start + duration {
                p = Point2(min(max(p.x + cos(heading) * 0.3 / hz, 0.5), 39.5), min(max(p.y + sin(heading) * 0.3 / hz, 0.5), 29.5))
                let nearest = site.nodes.indices.sorted { hypot(site.nodes[$0].point.x - p.x, site.nodes[$0].point.y - p.y)
                    < hypot(site.nodes[$1].point.x - p.x, site.nodes[$1].point.y - p.y) }.prefix(heardBy)
                for n in nearest {
                    let dist = max(hypot(site.nodes[n].point.x - p.x, site.nodes[n].point.y - p.y), 0.5)
                    let node = site.nodes[n].point.xy
                    let walls = site.floors[0].walls.filter { Segment.intersects(p, node, $0.points[0], $0.points[1]) }.count
                    let rssi = -59 - 27 * log10(dist) - 4 * Double(walls) + Double.random(in: -4...4, using: &rng)
                    out.append((n, Reading(id: ids[d], rssi: Int(rssi.rounded()), t: t, kind: .ibeacon)))
                }
                t += 1 / hz
            }
        }
        out.sort { $0.1.t < $1.1.t }
        return out
    }

    /// One pass of the stream, `offset` seconds later; returns (readings, updates, events).
    func feed(_ engine: Engine, offset: Double, output: inout [EngineOutput]) -> (Int, Int, Int) {
        var updates = 0, events = 0
        guard let first = stream.first?.reading.t else { return (0, 0, 0) }
        var tick = first + offset + 0.1
        for (node, reading) in stream {
            var r = reading
            r.t += offset
            if r.t > tick {
                engine.advance(to: tick, into: &output)
                for item in output { if case .update = item { updates += 1 } else { events += 1 } }
                output.removeAll(keepingCapacity: true)
                tick += 0.1
            }
            engine.ingest(nodeIndex: node, reading: r)
        }
        return (stream.count, updates, events)
    }
}
