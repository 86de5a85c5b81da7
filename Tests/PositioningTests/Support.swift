import Foundation
@testable import Positioning
import Wire
import SiteModel
import TestSupport

/// The seeded generator of every test target (`TestSupport`), so noisy scenarios are the same
/// on every run.
typealias SeededGenerator = SplitMix64

extension SplitMix64 {
    /// A standard normal sample (Box–Muller).
    mutating func gaussian() -> Double {
        let u = Double.random(in: Double.ulpOfOne..<1, using: &self), v = Double.random(in: 0..<1, using: &self)
        return (-2 * Foundation.log(u)).squareRoot() * cos(2 * Double.pi * v)
    }
}

/// Two rooms of 5 × 4 m side by side, split by a 6 dB wall at x = 5 with a door at y = 2,
/// a desk zone in the east room, and a node in each corner.
func twoRoomSite(doors: Bool = true) -> Site {
    var site = Site()
    var floor = Floor(id: "ground", name: "Ground", bounds: (Point3(0, 0, 0), Point3(10, 4, 2.5)))
    floor.rooms = [Room(id: "west", name: "West", points: [Point2(0, 0), Point2(5, 0), Point2(5, 4), Point2(0, 4)]),
                   Room(id: "east", name: "East", points: [Point2(5, 0), Point2(10, 0), Point2(10, 4), Point2(5, 4)])]
    floor.walls = [Wall(points: [Point2(5, 0), Point2(5, 1.5)], attenuation: 6),
                   Wall(points: [Point2(5, 2.5), Point2(5, 4)], attenuation: 6)]
    if doors { floor.doors = [Door(between: ("west", "east"), at: Point2(5, 2))] }
    site.floors = [floor]
    site.zones = [Zone(id: "desk", name: "Desk", floor: "ground", points: [Point2(7, 0.5), Point2(9, 0.5), Point2(9, 2), Point2(7, 2)])]
    site.nodes = [Node(name: "w1", point: Point3(0.3, 0.3, 2.2)), Node(name: "w2", point: Point3(4.7, 3.7, 1.0)),
                  Node(name: "w3", point: Point3(0.3, 3.7, 1.6)), Node(name: "e1", point: Point3(5.3, 0.3, 2.2)),
                  Node(name: "e2", point: Point3(9.7, 3.7, 1.0)), Node(name: "e3", point: Point3(9.7, 0.3, 1.6))]
    site.positioning.absorption = 2.5
    site.positioning.txRefDefault = -59
    site.positioning.awayAfter = 30
    return site
}

let deviceID = "iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-42"

/// Readings of one device following `path`, from every node every `period` seconds, by
/// the engine's own model (walls included) plus Gaussian noise in dB.
func simulate(site: Site, from t0: Double, to t1: Double, period: Double = 0.5, noise: Double,
              rng: inout SeededGenerator, path: (Double) -> Point3) -> [(node: String, reading: Reading)] {
    let geometry = SiteGeometry(site)
    let model = PathLoss(exponent: site.positioning.absorption)
    var out: [(String, Reading)] = []
    var t = t0
    while t < t1 {
        let p = path(t)
        for node in site.nodes {
            let walls = geometry.wallLoss(floor: 0, from: p.xy, to: node.point.xy)
            let rssi = model.rssi(distance: distance(p, node.point), txRef: site.positioning.txRefDefault, walls: walls)
                + noise * rng.gaussian()
            out.append((node.name, Reading(id: deviceID, rssi: Int(rssi.rounded()), t: t, kind: .ibeacon)))
        }
        t += period
    }
    return out
}

/// Feeds readings to `engine` on event time, advancing every `step` seconds.
func run(_ engine: Engine, _ readings: [(node: String, reading: Reading)], step: Double = 0.5, until end: Double? = nil) -> [EngineOutput] {
    var output: [EngineOutput] = []
    var tick = (readings.first?.reading.t ?? 0) + step
    for (node, reading) in readings {
        while reading.t > tick { engine.advance(to: tick, into: &output); tick += step }
        engine.ingest(node: node, reading: reading)
    }
    let last = max(end ?? 0, readings.last?.reading.t ?? 0)
    while tick <= last + step { engine.advance(to: tick, into: &output); tick += step }
    return output
}

func events(_ output: [EngineOutput]) -> [ZoneEvent] {
    output.compactMap { if case .event(let e) = $0 { e } else { nil } }
}

func updates(_ output: [EngineOutput]) -> [DeviceUpdate] {
    output.compactMap { if case .update(let u) = $0 { u } else { nil } }
}
