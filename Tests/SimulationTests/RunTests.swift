import BLE
@testable import Simulation
import Testing
import Wire
import SiteModel

/// The same seed gives the same bytes in every file; another seed gives other bytes.
@Test func sameSeedSameBytes() throws {
    let (a, summaryA) = run(try simulation())
    let (b, _) = run(try simulation())
    let (c, _) = run(try simulation(seed: 8))
    #expect(a.files == b.files)
    #expect(summaryA.manifest() == run(try simulation()).1.manifest())
    #expect(a.files[.readings] != c.files[.readings])
    #expect(a.files[.capture(0)] != c.files[.capture(0)])
    #expect(summaryA.readings > 1000)
}

/// Adding a device leaves what the others do alone: each draws from streams named after it.
@Test func addingADeviceDoesNotMoveTheOthers() throws {
    let extra = referenceScenario + """

      - id: "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-9-9"
        path: [ { at: [2, 2] } ]
    """
    let (a, _) = run(try simulation())
    let (b, _) = run(try simulation(scenario: extra))
    let keys = "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42"
    let truthA = a.lines(.truth).filter { String(decoding: $0, as: UTF8.self).contains(keys) }
    let truthB = b.lines(.truth).filter { String(decoding: $0, as: UTF8.self).contains(keys) }
    #expect(truthA == truthB)
}

/// Each node's capture decodes with the BLE module to exactly that node's readings in
/// readings.jsonl: same ids, addresses, RSSI, measured power, kinds and times, in order.
/// Phones' addresses are resolved with their keys, as the aggregator will.
@Test func capturesRoundTripToTheReadings() throws {
    let sim = try simulation()
    let (out, summary) = run(sim)
    let batches = try out.batches()
    let keys = sim.deviceKeys.compactMap { d in d.irk.map { (d.id, $0, d.known) } }
    #expect(keys.count == 2)
    for (n, node) in sim.site.nodes.enumerated() {
        let fromBatches = batches.filter { $0.node == node.name }.flatMap(\.readings)
        let bytes = try #require(out.files[.capture(n)])
        let (datalink, records, error) = BtsnoopReader.records(in: bytes)
        #expect(error == nil)
        #expect(datalink == .h4)
        var fromCapture: [Reading] = []
        for record in records {
            let packet = try #require(record.h4)
            let (reports, error) = AdvertisingReport.decode(h4: packet)
            #expect(error == nil)
            for report in reports {
                let ms = (record.timestamp - Btsnoop.unixEpochOffset) / 1000
                #expect((record.timestamp - Btsnoop.unixEpochOffset) % 1000 == 0)
                let address = report.header.address
                let owner = keys.first { $0.1.resolves(address) }
                // A stranger's phone is captured, but no edge can name it.
                if report.identity == nil, owner?.2 == false { continue }
                let id = report.identity?.id ?? owner?.0
                let kind = report.identity.flatMap { ReadingKind(rawValue: $0.kind) } ?? .irk
                fromCapture.append(Reading(id: try #require(id), mac: address.description, rssi: Int(try #require(report.header.rssi)),
                                           tx: report.summary.measuredPower.map(Int.init), t: Double(ms) / 1000, kind: kind))
            }
        }
        #expect(fromCapture.count == summary.nodes[n].readings)
        #expect(fromCapture == fromBatches, "node \(node.name)")
    }
}

/// Batches are what an edge publishes: per node, seq 1, 2, 3…, each holding the readings of
/// one 250 ms window of the node's clock and stamped with the window's end.
@Test func batchesFollowTheEdgesRules() throws {
    let (out, summary) = run(try simulation())
    let batches = try out.batches()
    #expect(batches.count == summary.batches)
    var lastSeq: [String: UInt64] = [:]
    var lastPublished = 0.0
    for batch in batches {
        #expect(batch.seq == (lastSeq[batch.node] ?? 0) + 1)
        lastSeq[batch.node] = batch.seq
        #expect(!batch.readings.isEmpty)
        let endMs = Int64((batch.t * 1000).rounded())
        #expect(endMs % 250 == 0)
        for r in batch.readings {
            let ms = Int64((r.t * 1000).rounded())
            #expect(ms < endMs && ms >= endMs - 250)
        }
        // Lines are in publication order; node clocks differ by well under a second.
        #expect(batch.t > lastPublished - 1)
        lastPublished = max(lastPublished, batch.t)
    }
}

/// Every truth line's room is the room polygon holding its point; positions stay on the floor plan.
@Test func truthRoomsMatchThePolygons() throws {
    let sim = try simulation()
    let (out, _) = run(sim)
    let rooms = sim.site.floors[0].rooms
    var counted: [String: Int] = [:]
    for line in out.lines(.truth) {
        let text = String(decoding: line, as: UTF8.self)
        guard !text.contains("\"room\":\"away\"") else { counted["away", default: 0] += 1; continue }
        let x = try #require(number(text, "x")), y = try #require(number(text, "y"))
        let room = try #require(text.split(separator: "\"room\":\"").last?.split(separator: "\"").first.map(String.init))
        let holding = rooms.filter { Polygon.contains($0.points, Point2(x, y)) }.map(\.id)
        #expect(holding.first == room, "\(text)")
        #expect((0...6).contains(x) && (0...4).contains(y))
        counted[room, default: 0] += 1
    }
    // 2 min at 10 Hz for 4 devices; the keys spend 20 s away.
    #expect(counted.values.reduce(0, +) == 4 * 1200)
    #expect(counted["away"] == 200)
    #expect((counted["west"] ?? 0) > 0 && (counted["east"] ?? 0) > 0)
}

/// Walking from west to east, the truth crosses the wall only in the doorway.
@Test func walksCrossWallsOnlyThroughDoors() throws {
    let sim = try simulation()
    let (out, _) = run(sim)
    var previous: [String: (Double, Double)] = [:]
    var crossings = 0
    for line in out.lines(.truth) {
        let text = String(decoding: line, as: UTF8.self)
        guard let x = number(text, "x"), let y = number(text, "y"), let id = text.split(separator: "\"id\":\"").last?.split(separator: "\"").first else { continue }
        if let (px, py) = previous[String(id)], (px < 3) != (x < 3) {
            crossings += 1
            let yAtWall = py + (y - py) * (3 - px) / (x - px)
            #expect(abs(yAtWall - 2) < 0.45, "\(id) crossed the wall at y = \(yAtWall)")
        }
        previous[String(id)] = (x, y)
    }
    #expect(crossings >= 2)
}

/// A phone's address is a resolvable private address that changes every rotation period
/// and always resolves with its key; nothing is heard from a device while it is away.
@Test func phonesRotateResolvableAddresses() throws {
    let sim = try simulation()
    let (out, summary) = run(sim)
    let jane = "irk:0123456789abcdef0123456789abcdef"  // the site's key named phone-jane
    let key = try #require(sim.deviceKeys.first { $0.id == jane }?.irk)
    #expect(key.hex == "0123456789abcdef0123456789abcdef")
    let readings = try out.batches().flatMap(\.readings).filter { $0.id == jane }
    let addresses = readings.compactMap { $0.mac.flatMap(BluetoothAddress.init) }
    #expect(addresses.count == readings.count)
    for address in addresses {
        #expect(address.mostSignificantByte >> 6 == 0b01)
        #expect(key.resolves(address))
    }
    var distinct: [BluetoothAddress] = []
    for a in addresses where distinct.last != a { distinct.append(a) }
    // 2 minutes with a 30 s rotation: 4 or 5 addresses, each used once, in turn.
    #expect((4...5).contains(Set(addresses).count))
    #expect(distinct.count == Set(addresses).count)
    #expect(summary.devices.first { $0.id == jane }?.addresses == Set(addresses).count)
    // The keys are away from 20 s (+ the walk) for 20 s: a gap in their readings of about that.
    let keysTimes = try out.batches().flatMap(\.readings).filter { $0.kind == .ibeacon }.map(\.t).sorted()
    let longestGap = zip(keysTimes, keysTimes.dropFirst()).map { $1 - $0 }.max() ?? 0
    #expect(longestGap > 19 && longestGap < 21.5)
}

/// A stranger's phone (its key drawn from the seed, known to neither site nor scenario) is in
/// the captures on rotating resolvable addresses, and in the truth, but never in the readings.
@Test func strangersAreCapturedButNotNamed() throws {
    let sim = try simulation()
    let (out, summary) = run(sim)
    let stranger = try #require(sim.deviceKeys.last { $0.id.hasPrefix("irk:") })
    #expect(!stranger.known)
    let key = try #require(stranger.irk)
    #expect(stranger.id == "irk:" + key.hex)
    var captured = 0
    for n in sim.site.nodes.indices {
        for record in BtsnoopReader.records(in: out.files[.capture(n)] ?? []).records {
            for report in AdvertisingReport.decode(h4: record.h4 ?? []).reports where key.resolves(report.header.address) {
                #expect(report.identity == nil)
                captured += 1
            }
        }
    }
    #expect(captured > 500)
    #expect(try out.batches().allSatisfy { $0.readings.allSatisfy { $0.id != stranger.id } })
    #expect(out.lines(.truth).contains { String(decoding: $0, as: UTF8.self).contains(stranger.id) })
    #expect(summary.nodes.reduce(0) { $0 + $1.heard } == summary.nodes.reduce(0) { $0 + $1.readings } + captured)
}

/// A number field of a truth line.
func number(_ text: String, _ key: String) -> Double? {
    guard let tail = text.split(separator: "\"\(key)\":", maxSplits: 1).dropFirst().first else { return nil }
    return Double(tail.prefix { $0 != "," && $0 != "}" })
}

/// Two offices either side of a corridor, doors on the corridor only: walking from one office
/// to the other goes out through one door, along the corridor and in through the other, and
/// every wall crossing of the truth is in a doorway.
@Test func routesGoThroughTheDoorsOfEveryRoomOnTheWay() throws {
    let offices = """
        floors:
          - id: f
            bounds: [[0, 0, 0], [12, 12, 3]]
            rooms:
              - { id: south, points: [[0, 0], [4, 0], [4, 5], [0, 5]] }
              - { id: corridor, points: [[0, 5], [12, 5], [12, 7], [0, 7]] }
              - { id: north, points: [[8, 7], [12, 7], [12, 12], [8, 12]] }
            walls:
              - { points: [[0, 5], [12, 5]], attenuation: 5 }
              - { points: [[0, 7], [12, 7]], attenuation: 5 }
            doors:
              - { between: [south, corridor], at: [2, 5] }
              - { between: [corridor, north], at: [10, 7] }
        nodes: [ { name: a, point: [1, 1, 2] }, { name: b, point: [11, 11, 2] } ]
        """
    let sim = try simulation(site: offices, scenario: """
        duration: 40s
        devices:
          - mac: "c2:3a:6b:01:02:03"
            path: [ { at: [3, 1] }, { at: [9, 11] } ]
        """)
    let (out, _) = run(sim)
    let floor = sim.site.floors[0]
    var rooms: [String] = []
    var previous: Point2?
    for line in out.lines(.truth) {
        let text = String(decoding: line, as: UTF8.self)
        let p = Point2(try #require(number(text, "x")), try #require(number(text, "y")))
        let room = text.split(separator: "\"room\":\"").last?.split(separator: "\"").first.map(String.init) ?? "none"
        if rooms.last != room { rooms.append(room) }
        if let q = previous {
            for wall in floor.walls where Segment.intersects(q, p, wall.points[0], wall.points[1]) {
                let c = World.crossing(q, p, wall.points[0], wall.points[1])
                #expect(floor.doors.contains { length($0.at, c) < 0.45 }, "crossed at \(c)")
            }
        }
        previous = p
    }
    #expect(rooms == ["south", "corridor", "north"])
}
