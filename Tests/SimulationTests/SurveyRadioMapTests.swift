import Foundation
import Positioning
@testable import Simulation
import Testing
import Wire
import SiteModel
import YAML

/// The radio map a survey fits: tools/calibration/site.yaml simulated with all its walls, fitted
/// and scored on the site file without the wall between the middle and east offices (a wall the
/// user did not draw). The map must learn it where the survey went, and the engine must use it.
@Suite struct SurveyRadioMapTests {
    static let device = SurveyFitTests.device

    /// The site as the simulator builds the world (every wall) and as the user wrote it (no wall at x = 8).
    static func sites() -> (world: Site, drawn: Site) {
        var world = Site.load(path: NodeBeaconCalibrationTests.tools + "calibration/site.yaml").site
        for i in world.nodes.indices { world.nodes[i].beacon = nil }
        world.floors[0].walls = world.floors[0].walls.map { var w = $0; w.attenuation = $0.points[0].x == 8 ? 10 : $0.attenuation; return w }
        var drawn = world
        drawn.floors[0].walls.removeAll { $0.points[0].x == 8 }
        return (world, drawn)
    }

    /// A tag stood at `points` for `dwell` s each in `world`: readings and TRUTH.csv.
    static func simulate(_ world: Site, seed: UInt64, points: [(Double, Double)], dwell: Int) throws -> ([(node: String, reading: Reading)], String) {
        var text = "seed: \(seed)\nduration: \(points.count * dwell + 5)s\neffects: { path_loss_exponent: 2.7, shadowing_sd: 1 }\n"
        text += "devices:\n  - id: \"\(device)\"\n    tx_power: -59\n    body_loss: 0\n    interval_ms: 200\n    path:\n"
        for (x, y) in points { text += "      - { at: [\(x), \(y)], dwell: \(dwell)s }\n" }
        let decoded = Scenario.decode(try YAML.parse(text))
        try #require(decoded.errors.isEmpty, "\(decoded.errors)")
        let sim = try #require(Simulation.prepare(site: world, scenario: decoded.scenario).simulation)
        let (output, _) = run(sim)
        var readings: [(node: String, reading: Reading)] = []
        for batch in try output.batches() { for r in batch.readings { readings.append((batch.node, r)) } }
        var csv = "t,x,y,z,floor\n"
        for line in output.lines(.truth) {
            let o = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            guard let t = o["t"] as? Double, let x = o["x"] as? Double, let y = o["y"] as? Double, let z = o["z"] as? Double else { continue }
            csv += "\(t),\(x),\(y),\(z),office\n"
        }
        return (readings.sorted { $0.reading.t < $1.reading.t }, csv)
    }

    static let surveyPoints = stride(from: 0.5, to: 12, by: 1.5).flatMap { x in stride(from: 0.5, to: 5, by: 1.5).map { (x, $0) } }

    static func fitted() throws -> (Site, SurveyCalibration) {
        let (world, drawn) = sites()
        let (readings, csv) = try simulate(world, seed: 11, points: surveyPoints, dwell: 20)
        return (drawn, try SurveyCalibration.fit(readings: readings, truth: try TruthTrack(csv: csv, site: drawn), site: drawn).get())
    }

    @Test func theMapLearnsAWallTheSiteFileLacks() throws {
        let (_, fit) = try Self.fitted()
        let map = fit.radioMap
        // e-desk (11.5, 0.5) hears the middle office through the undrawn 10 dB wall.
        let layer = try #require(map.layers.first { $0.node == "e-desk" })
        let behind = [(5.0, 1.0), (6.5, 2.5), (7.0, 4.0)].map { map.correction(layer, x: $0.0, y: $0.1) }
        let inside = [(9.5, 1.0), (10.5, 2.5), (9.0, 4.0)].map { map.correction(layer, x: $0.0, y: $0.1) }
        // Part of the wall goes into e-desk's rx_adj and the exponent (most of the points e-desk
        // hears are behind it), and the model's weight shrinks the rest: measured 3.6 dB.
        let gap = inside.reduce(0, +) / 3 - behind.reduce(0, +) / 3
        #expect(gap > 3, "behind the wall \(behind), inside \(inside)")
        // Far from every survey point (the corridor's far end was never surveyed) the map is the model.
        #expect(abs(map.correction(layer, x: 0, y: 40)) < 1e-9)
        // Held out, the map predicts each point better than the model alone, for the nodes the wall hides.
        for name in ["e-desk", "e-wall", "m-desk"] {
            let f = try #require(fit.mapFits.first { $0.node == name })
            #expect(f.rmsHeldOut < f.rmsModel, "\(name): \(f)")
            #expect(f.rmsMap <= f.rmsHeldOut)
        }
        #expect(fit.mapFits.allSatisfy { $0.thin > 0.2 }, "the corridor (y > 5) was not surveyed")
    }

    @Test func theMapRoundTripsThroughTheFileAndIsRefusedForAnotherSite() throws {
        let (drawn, fit) = try Self.fitted()
        let text = fit.calibrationFile(comment: ["a test"])
        let (read, problems) = SiteCalibration.decode(try YAML.parse(text))
        #expect(problems.isEmpty, "\(problems)")
        let map = try #require(read.radioMap)
        #expect(map.layers.count == fit.radioMap.layers.count && map.bandwidth == fit.radioMap.bandwidth)
        let (a, b) = (fit.radioMap.layers[0], map.layers[0])
        #expect(abs(fit.radioMap.correction(a, x: 6, y: 2) - map.correction(b, x: 6, y: 2)) < 0.02)
        #expect(read.applied(to: drawn).radioMap == map)
        var other = drawn
        other.floors[0].id = "attic"
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("radiomap-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try text.write(to: dir.appendingPathComponent("cal.yaml"), atomically: true, encoding: .utf8)
        var site = try String(contentsOfFile: NodeBeaconCalibrationTests.tools + "calibration/site.yaml", encoding: .utf8)
        site = site.replacingOccurrences(of: "office", with: "attic")
        try site.write(to: dir.appendingPathComponent("site.yaml"), atomically: true, encoding: .utf8)
        let loaded = CalibratedSite.load(sitePath: dir.appendingPathComponent("site.yaml").path, calibration: dir.appendingPathComponent("cal.yaml").path)
        #expect(loaded.errors.contains { $0.problem.message.contains("floor office is not in") }, "\(loaded.problems.map(\.problem))")
        #expect(loaded.calibrationPath == nil && loaded.site.radioMap == nil)
    }

    @Test func aBrokenMapIsRefusedWithItsLine() throws {
        let text = """
            version: 1
            radio_map:
              bandwidth: 1.5
              prior: 1
              limit: 10
              nodes:
                - name: e-desk
                  floor: office
                  points:
                    - [1, 2, 3]
                    - [1, 2, 300, 1]
            """
        let (read, problems) = SiteCalibration.decode(try YAML.parse(text))
        #expect(read.radioMap == nil)
        #expect(problems.contains { $0.line == 10 && $0.key == "radio_map.nodes[0].points[0]" && $0.message.contains("[x, y, dB, weight]") }, "\(problems)")
        #expect(problems.contains { $0.line == 11 && $0.key.hasPrefix("radio_map.nodes[0].points[1]") }, "\(problems)")
        let missing = SiteCalibration.decode(try YAML.parse("version: 1\nradio_map: { prior: 1, limit: 10, nodes: [] }\n"))
        #expect(missing.problems.contains { $0.key == "radio_map.bandwidth" }, "\(missing.problems)")
    }

    /// The engine with the calibration located a tag at points the survey did not stand on
    /// (between its points) better with the map than with the same calibration without it.
    @Test func theEngineLocatesBetterWithTheMap() throws {
        let (drawn, fit) = try Self.fitted()
        let (world, _) = Self.sites()
        let points = stride(from: 1.25, to: 11.5, by: 1.5).flatMap { x in [1.25, 2.75, 4.0].map { (x, $0) } }
        let (readings, csv) = try Self.simulate(world, seed: 12, points: points, dwell: 10)
        let truth = try TruthTrack(csv: csv, site: drawn)
        var withMap = fit.siteCalibration
        let mapped = Self.median(withMap.applied(to: drawn), readings, truth)
        withMap.radioMap = nil
        let plain = Self.median(withMap.applied(to: drawn), readings, truth)
        #expect(mapped < plain - 0.1, "median \(plain) m without the map, \(mapped) m with it")
    }

    static func median(_ site: Site, _ readings: [(node: String, reading: Reading)], _ truth: TruthTrack) -> Double {
        let engine = Engine(site: site)
        var output: [EngineOutput] = [], errors: [Double] = []
        var tick = (readings.first?.reading.t ?? 0) + 0.5
        func collect() {
            for case .update(let u) in output {
                if let (p, _) = truth.position(at: u.t) { errors.append(((u.x - p.x) * (u.x - p.x) + (u.y - p.y) * (u.y - p.y)).squareRoot()) }
            }
            output.removeAll()
        }
        for (node, r) in readings {
            while r.t > tick { engine.advance(to: tick, into: &output); collect(); tick += 0.5 }
            engine.ingest(node: node, reading: r)
        }
        errors.sort()
        return errors.isEmpty ? .infinity : errors[errors.count / 2]
    }
}
