import Foundation
import Positioning
@testable import Simulation
import Testing
import Wire
import SiteModel
import YAML

/// `tools/calibration/site.yaml` simulated with `tools/calibration/scenario.yaml`: ten nodes
/// beaconing, receivers off by known offsets, a channel exponent (3.3) that is not the site's
/// absorption (2.7). This is what `whereabouts calibrate` does with the readings: the engine's
/// ingest keeps the node-to-node links, `NodeBeaconCalibration` fits them.
@Suite struct NodeBeaconCalibrationTests {
    static let tools: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/tools/"
    }()

    func simulated(seed: UInt64) throws -> (Site, Scenario, NodeBeaconLinks, Engine) {
        let site = Site.load(path: Self.tools + "calibration/site.yaml")
        try #require(site.errors.isEmpty, "\(site.errors)")
        var decoded = Scenario.decode(try YAML.parse(String(contentsOfFile: Self.tools + "calibration/scenario.yaml", encoding: .utf8)))
        try #require(decoded.errors.isEmpty, "\(decoded.errors)")
        decoded.scenario.seed = seed
        let sim = try #require(Simulation.prepare(site: site.site, scenario: decoded.scenario).simulation)
        let (output, _) = run(sim)
        let engine = Engine(site: site.site, locator: .nearest)
        for batch in try output.batches() {
            for reading in batch.readings { engine.ingest(node: batch.node, reading: reading) }
        }
        return (site.site, decoded.scenario, engine.beaconLinks, engine)
    }

    /// Tolerances, from the channel: each link's median carries the receiver's shadowing at the
    /// sender (σ 2 dB) and the sender's own power error (σ 1 dB), about 2.2 dB a link. An
    /// rx_adj rests on the 9 links a node hears: 0.75 dB if they were independent; they are
    /// not quite (the shadowing field is correlated over 2 m and has components longer than the
    /// floor, which no calibration can tell from an offset), so the bar is twice that for the
    /// rms over nodes and four times for the worst node. The exponent's standard error is
    /// σ / √Σ(basis − receiver's mean basis)², computed from the links (about 0.14 here: the
    /// distances on one floor span a decade at most); the bar is 3 of them, less than the 0.6
    /// between the channel's 3.3 and the site's 2.7. Ignoring the offsets would be 4 dB rms and
    /// 6.3 dB at worst; keeping the site's absorption would be 0.6 off: either fails.
    @Test(arguments: [11, 12] as [UInt64])
    func theFitRecoversTheAbsorptionAndEveryReceiverOffset(seed: UInt64) throws {
        let (site, scenario, links, engine) = try simulated(seed: seed)
        #expect(engine.deviceCount >= 1)
        let fit = try NodeBeaconCalibration.fit(site: site, links: links).get()
        let c = fit

        let offsets = site.nodes.map { node in scenario.nodes.first { $0.name == node.name }?.rxOffset ?? .nan }
        let mean = offsets.reduce(0, +) / Double(offsets.count)
        let errors = site.nodes.indices.map { (c.rxAdj[site.nodes[$0].name] ?? .nan) - -(offsets[$0] - mean) }
        let rms = (errors.map { $0 * $0 }.reduce(0, +) / Double(errors.count)).squareRoot()
        let perLink = (2.0 * 2.0 + 1.0 * 1.0).squareRoot(), perNode = perLink / 3
        #expect(rms < 2 * perNode, "rx_adj errors \(errors)")
        #expect(errors.allSatisfy { abs($0) < 4 * perNode }, "rx_adj errors \(errors)")

        var spread = 0.0
        for node in site.nodes {
            let bases = fit.links.filter { $0.to == node.name }.map { -10 * log10($0.distance) }
            let m = bases.reduce(0, +) / Double(bases.count)
            spread += bases.reduce(0) { $0 + ($1 - m) * ($1 - m) }
        }
        let exponentError = perLink / spread.squareRoot()
        #expect(abs(c.absorption - 3.3) < 3 * exponentError, "absorption \(c.absorption), standard error \(exponentError)")
        #expect(3 * exponentError < abs(3.3 - site.positioning.absorption))
        #expect(fit.links.count >= 80)
    }

    @Test func aSiteWithoutBeaconsOrWithoutLinksSaysWhy() throws {
        let (site, _, links, _) = try simulated(seed: 11)
        var silent = site
        for i in silent.nodes.indices { silent.nodes[i].beacon = nil }
        #expect(NodeBeaconCalibration.fit(site: silent, links: links).failure == .noBeacons)
        let names = site.nodes.map(\.name)
        #expect(NodeBeaconCalibration.fit(site: site, links: NodeBeaconLinks(nodeCount: names.count)).failure == .notHearing(names))
    }

    @Test func nodesDoNotHearThemselvesAndBeaconsHaveNoTruth() throws {
        let site = Site.load(path: Self.tools + "calibration/site.yaml").site
        let decoded = Scenario.decode(try YAML.parse(String(contentsOfFile: Self.tools + "calibration/scenario.yaml", encoding: .utf8)))
        var short = decoded.scenario
        short.duration = 20
        let sim = try #require(Simulation.prepare(site: site, scenario: short).simulation)
        let (output, _) = run(sim)
        let beacons = Set(site.nodes.compactMap(\.beacon))
        for batch in try output.batches() {
            let own = site.nodes.first { $0.name == batch.node }?.beacon
            #expect(!batch.readings.contains { $0.id == own })
        }
        let heard = Set(try output.batches().flatMap { $0.readings.map(\.id) })
        #expect(beacons.isSubset(of: heard))
        let truthIDs = Set(try output.lines(.truth).compactMap {
            (try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])?["id"] as? String
        })
        #expect(truthIDs.isDisjoint(with: beacons))
        #expect(!truthIDs.isEmpty)
    }
}

@Test func onlyBeaconsTheSimulatorCanSendAreSimulated() throws {
    var s = try site(referenceSite)
    s.nodes[0].beacon = "eddystone:0123456789abcdef0123-0123456789ab"
    s.nodes[1].beacon = "mac:c2:00:00:00:00:01"
    let decoded = Scenario.decode(try YAML.parse(referenceScenario + "\nnode_beacons: { interval: 500ms, tx_power: -55 }\n"))
    #expect(decoded.errors.isEmpty)
    #expect(decoded.scenario.nodeBeacons == NodeBeacons(interval: 0.5, txPower: -55, line: decoded.scenario.nodeBeacons?.line ?? 0))
    let prepared = Simulation.prepare(site: s, scenario: decoded.scenario)
    #expect(prepared.simulation == nil)
    #expect(prepared.problems.map(\.key) == ["node_beacons"])
    #expect(prepared.problems.first?.message.contains("node 'sw' beacons as 'eddystone:") == true)
    s.nodes[0].beacon = nil
    let beaconing = try #require(Simulation.prepare(site: s, scenario: decoded.scenario).simulation)
    #expect(beaconing.scenario.devices.filter { $0.beaconOf != nil }.map(\.id) == ["mac:c2:00:00:00:00:01"])
}

private extension Result {
    var failure: Failure? { if case .failure(let f) = self { f } else { nil } }
}
