import BLE
import Foundation
@testable import Lab
import Simulation
import Testing
import Wire
import SiteModel
import YAML

/// The oracle of `whereabouts-lab accuracy` ("the model's ceiling on each simulated site") on the
/// real simulator: with nothing between the model and the channel its fix is the truth, and
/// each fixed error moves it the way that error pulls.
@Suite struct OracleTests {
    static let tools: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/tools/"
    }()

    /// A committed site and scenario, cut to `duration` seconds, its seed moved by `seedOffset`.
    static func committed(_ name: String, duration: Double, seedOffset: UInt64 = 0,
                          change: (inout Scenario, Site) -> Void = { _, _ in }) throws -> Simulation {
        let site = Site.load(path: tools + "sites/\(name).yaml")
        try #require(site.errors.isEmpty, "\(site.errors)")
        var decoded = Scenario.decode(try YAML.parse(String(contentsOfFile: tools + "scenarios/\(name).yaml", encoding: .utf8)))
        try #require(decoded.errors.isEmpty, "\(decoded.errors)")
        decoded.scenario.duration = duration
        decoded.scenario.seed &+= seedOffset
        change(&decoded.scenario, site.site)
        return try #require(Simulation.prepare(site: site.site, scenario: decoded.scenario).simulation)
    }

    /// The same with every fixed error off (the site's `rx_adj` matched by the receivers'
    /// offsets) unless `keep` turns some on.
    static func quiet(_ name: String, duration: Double = 300, keep: @escaping (inout Scenario) -> Void = { _ in }) throws -> Simulation {
        try committed(name, duration: duration) { s, site in
            s.effects.shadowingSD = 0; s.effects.bodyLoss = 0; s.effects.rxOffsetSD = 0; s.effects.txErrorSD = 0
            for d in s.devices.indices { s.devices[d].bodyLoss = 0 }
            s.nodes = site.nodes.map { NodeSetting(name: $0.name, rxOffset: -$0.rxAdj) }
            keep(&s)
        }
    }

    static func error(_ sample: OracleSample, _ v: Int) -> Double {
        let dx = sample.fixes[v].x - sample.truth.x, dy = sample.fixes[v].y - sample.truth.y
        return (dx * dx + dy * dy).squareRoot()
    }

    /// With every effect off the model is the channel: every variant's fix is the true
    /// position, on every site, floors and walls included.
    @Test(arguments: ["flat", "house", "office", "reference"])
    func exactChannelGivesTheTruth(site: String) throws {
        let sim = try Self.quiet(site)
        let samples = sim.oracle([.engine, .offsetsKnown, .shadowingOnly, .exact], period: 5)
        #expect(samples.count > 50)
        #expect(Set(samples.map(\.floor)).count == sim.site.floors.count)
        let worst = samples.map { s in (0..<4).map { Self.error(s, $0) }.max() ?? .infinity }.max() ?? .infinity
        #expect(worst < 0.03, "worst \(worst) m")
    }

    /// One receiver 6 dB louder than the site says: the oracle that does not know it pulls
    /// every fix toward that node; the one that knows the offsets is exact.
    @Test func aLoudReceiverPullsTheFixTowardIt() throws {
        let sim = try Self.quiet("reference") { s in s.nodes[2].rxOffset = 6 }
        let ne = sim.site.nodes[2].point.xy
        let samples = sim.oracle([.engine, .offsetsKnown], period: 5)
        func distance(_ p: Point2) -> Double { ((p.x - ne.x) * (p.x - ne.x) + (p.y - ne.y) * (p.y - ne.y)).squareRoot() }
        let pulled = samples.filter { distance($0.fixes[0]) < distance($0.truth.xy) - 0.05 }
        #expect(pulled.count == samples.count)
        #expect(samples.allSatisfy { Self.error($0, 1) < 0.03 })
    }

    /// A carrier walking east with the body on and nothing else: the nodes behind are quieter,
    /// so the fix lies ahead of the walker; knowing the body, the oracle is exact.
    @Test func theBodyPushesTheFixAhead() throws {
        let sim = try Self.quiet("reference", duration: 20) { s in
            s.effects.bodyLoss = 6
            var walker = DeviceSpec(kind: .mac(BluetoothAddress(rawValue: 1)))
            walker.speed = 0.5
            walker.path = [PathStep(.waypoint(Point2(0.6, 2.5), floor: nil, dwell: 0)), PathStep(.waypoint(Point2(5.4, 2.5), floor: nil, dwell: 0))]
            s.devices = [walker]
        }
        let samples = sim.oracle([.offsetsKnown, .shadowingOnly], period: 1)
        let ahead = samples.map { $0.fixes[0].x - $0.truth.x }
        #expect(ahead.count == 21)
        #expect(ahead.filter { $0 > 0 }.count >= 18, "\(ahead)")
        #expect(ahead.reduce(0, +) / Double(ahead.count) > 0.1, "\(ahead)")
        #expect(samples.allSatisfy { Self.error($0, 1) < 0.03 })
    }

    /// The same shadowing field at a quarter, half and all of its amplitude: the median
    /// error grows with it.
    @Test func moreShadowingMovesTheFixFurther() throws {
        let sim = try Self.quiet("reference", duration: 600) { s in s.effects.shadowingSD = 4 }
        let scales = [0.25, 0.5, 1]
        let samples = sim.oracle(scales.map { OracleVariant(offsets: false, body: false, shadowing: $0) }, period: 2)
        let medians = scales.indices.map { v in
            let sorted = samples.map { Self.error($0, v) }.sorted()
            return sorted[sorted.count / 2]
        }
        #expect(medians[0] > 0.01)
        #expect(medians[0] < medians[1] && medians[1] < medians[2], "\(medians)")
    }
}

extension OracleTests {
    /// Every fixed error on (the committed scenarios on their seed and the next): an exact grid
    /// of the whole floor at 2.5 cm, half the search's spacing or finer, finds a better fit than
    /// the oracle's on few distinct fits, and then by under 5 % of the cost: where the line to a
    /// node grazes a wall's end or a door's edge the cost has slivers thinner than any grid, and
    /// two places far apart can fit almost equally well.
    @Test(arguments: ["reference", "flat", "house"], [0, 1] as [UInt64])
    func theFixIsTheGlobalOptimum(site: String, seedOffset: UInt64) throws {
        let sim = try Self.committed(site, duration: 1200, seedOffset: seedOffset)
        let state = sim.makeState()
        var grid = OracleGrid(channel: state.channel, points: 20_000)
        let bounds = sim.site.floors[0].bounds
        var checked = 0, beaten = 0, worst = 0.0
        for device in state.devices {
            var last: Track.State?
            for s in stride(from: 0.0, through: 1200, by: 90) {
                let now = device.track.state(at: s, in: sim.world)
                guard !now.away, now != last else { continue }
                last = now
                let terms = OracleTerms(device, now, channel: state.channel, site: sim.site)
                for v in [OracleVariant.engine, .shadowingOnly] {
                    let targets = terms.targets(v)
                    func cost(_ x: Double, _ y: Double) -> Double {
                        grid.cost(Point2(x, y), targets: targets, nodes: terms.nodes, floor: now.floor, z: now.position.z)
                    }
                    let fix = grid.fix(targets: targets, nodes: terms.nodes, floor: now.floor, z: now.position.z)
                    let found = cost(fix.x, fix.y)
                    var fine = Double.infinity
                    // Off the walls' lines: a point exactly on a wall sees it crossed or not by rounding.
                    for x in stride(from: bounds.min.x + 0.0123, through: bounds.max.x, by: 0.025) {
                        for y in stride(from: bounds.min.y + 0.0117, through: bounds.max.y, by: 0.025) {
                            fine = min(fine, cost(x, y))
                        }
                    }
                    checked += 1
                    if found > fine + 1e-9 { beaten += 1; worst = max(worst, found / fine) }
                }
            }
        }
        #expect(checked > 20)
        #expect(Double(beaten) <= 0.25 * Double(checked), "\(beaten) of \(checked) fits beaten by the fine grid")
        #expect(worst < 1.05, "a fit beaten by \(worst)×")
    }
}
