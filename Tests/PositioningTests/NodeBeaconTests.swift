@testable import Positioning
import Testing
import Wire
import SiteModel

/// A node's own advertisements (its site `beacon` id) are kept for calibration, never tracked.
@Suite struct NodeBeaconTests {
    static let w1Beacon = "iBeacon:e5ca1ade-f007-ba11-0000-000000000000-1-1"
    static let e2Beacon = "mac:c2:00:00:00:00:e2"

    func beaconingSite() -> Site {
        var site = twoRoomSite()
        site.nodes[0].beacon = Self.w1Beacon
        site.nodes[4].beacon = Self.e2Beacon
        return site
    }

    /// Every node hears both beacons and a real device once a second for two minutes, then
    /// the beacons fall silent for longer than `forgetAfter`: their slots go, no device appears.
    @Test func aNodeBeaconNeverBecomesADevice() {
        let site = beaconingSite()
        let engine = Engine(site: site)
        engine.forgetAfter = 30
        var rng = SeededGenerator(seed: 3)
        var readings = simulate(site: site, from: 1000, to: 1120, period: 1, noise: 2, rng: &rng) { _ in Point3(2, 2, 1.2) }
        for t in stride(from: 1000.0, to: 1120, by: 1) {
            for node in site.nodes {
                readings.append((node.name, Reading(id: Self.w1Beacon, rssi: -70, tx: -60, t: t + 0.1, kind: .ibeacon)))
                readings.append((node.name, Reading(id: Self.e2Beacon, rssi: -75, t: t + 0.2, kind: .mac)))
            }
        }
        readings.sort { $0.reading.t < $1.reading.t }
        var output = run(engine, readings)
        #expect(engine.deviceCount == 3)
        var forgotten: [String] = []
        engine.takeForgotten(into: &forgotten)
        #expect(forgotten.isEmpty, "heard beacons are kept, not forgotten and made again every second")
        engine.advance(to: 1200, into: &output)
        engine.takeForgotten(into: &forgotten)
        #expect(Set(forgotten).isSuperset(of: [Self.w1Beacon, Self.e2Beacon]))
        let ids = Set(updates(output).map(\.id)).union(events(output).map(\.device))
        #expect(ids == [deviceID])
        #expect(engine.shutdown(at: 1201).allSatisfy { $0.device == deviceID })
        #expect(engine.rejections.total == 0)
        // 120 s × 6 nodes × 2 beacons, less each beacon heard by its own node.
        #expect(engine.beaconLinks.total == 120 * 5 * 2)
        let links = engine.beaconLinks.heard
        #expect(links.count == 10)
        #expect(links.allSatisfy { $0.from == 0 || $0.from == 4 })
        #expect(links.allSatisfy { $0.from != $0.to && $0.count == 120 })
        #expect(links.allSatisfy { $0.median == ($0.from == 0 ? -70 : -75) })
        #expect(engine.beaconLinks.announcedTx == [-60, nil, nil, nil, nil, nil])
    }

    /// The aggregator's path: ids straight from payload bytes.
    @Test func aNodeBeaconGivenAsBytesIsKeptNotTracked() {
        let engine = Engine(site: beaconingSite())
        var id = Self.e2Beacon
        let ok = id.withUTF8 { engine.ingest(nodeIndex: 1, id: UnsafeRawBufferPointer($0), rssi: -80, tx: nil, t: 10) }
        #expect(ok)
        var output: [EngineOutput] = []
        engine.advance(to: 20, into: &output)
        #expect(output.isEmpty)
        #expect(engine.beaconLinks.heard.map { [$0.from, $0.to, $0.count] } == [[4, 1, 1]])
    }

    @Test func theMedianOfAHistogramIsExact() {
        var links = NodeBeaconLinks(nodeCount: 2)
        for rssi in [-60, -70, -61, -90] { links.record(from: 0, to: 1, rssi: rssi, tx: nil) }
        links.record(from: 1, to: 1, rssi: -40, tx: nil)
        #expect(links.heard.map(\.median) == [-65.5])
        links.record(from: 0, to: 1, rssi: -62, tx: nil)
        #expect(links.heard.map(\.median) == [-62])
        #expect(links.total == 5)
    }
}

/// The fit's refusals, each with its reason.
@Suite struct NodeBeaconFitFailureTests {
    @Test func aNodeThatHeardNoBeaconIsNamed() {
        var site = twoRoomSite()
        site.nodes[0].beacon = "mac:c2:00:00:00:00:01"
        var links = NodeBeaconLinks(nodeCount: site.nodes.count)
        for to in 1..<site.nodes.count { for _ in 0..<10 { links.record(from: 0, to: to, rssi: -70, tx: nil) } }
        let failure = NodeBeaconCalibration.fit(site: site, links: links)
        #expect(failure.failureValue == .notHearing(["w1"]))
        #expect(failure.failureValue?.description.hasPrefix("node w1 heard no other node's beacon 10 times") == true)
    }

    @Test func twoNodesAreTooFewLinks() {
        var site = twoRoomSite()
        site.nodes = Array(site.nodes.prefix(2))
        site.nodes[0].beacon = "mac:c2:00:00:00:00:01"
        site.nodes[1].beacon = "mac:c2:00:00:00:00:02"
        var links = NodeBeaconLinks(nodeCount: 2)
        for _ in 0..<10 { links.record(from: 0, to: 1, rssi: -70, tx: nil); links.record(from: 1, to: 0, rssi: -71, tx: nil) }
        #expect(NodeBeaconCalibration.fit(site: site, links: links).failureValue == .tooFewLinks(have: 2, need: 4))
    }
}

private extension Result {
    var failureValue: Failure? { if case .failure(let f) = self { f } else { nil } }
}

/// Links made by the engine's own model (walls included, exponent 3) with receivers loud by
/// `offsets`, the link w1 → e2 12 dB loud (a wall the site does not draw, or a node moved),
/// for the links `heard` allows.
private func modelLinks(_ site: Site, offsets: [Double], heard: (Int, Int) -> Bool = { _, _ in true }) -> NodeBeaconLinks {
    let geometry = SiteGeometry(site), model = PathLoss(exponent: 3.0)
    var links = NodeBeaconLinks(nodeCount: site.nodes.count)
    for from in site.nodes.indices {
        for to in site.nodes.indices where to != from && heard(from, to) {
            let a = site.nodes[from].point, b = site.nodes[to].point
            let walls = geometry.wallLoss(floor: 0, from: a.xy, to: b.xy)
            let odd = from == 0 && to == 4 ? 12.0 : 0
            let rssi = model.rssi(distance: distance(a, b), txRef: -59, walls: walls) + offsets[to] + odd
            // Half the readings a dB below the other half: the median is the mean, within 0.5 dB.
            for k in 0..<20 { links.record(from: from, to: to, rssi: Int(rssi.rounded(.down)) - k % 2, tx: -59) }
        }
    }
    return links
}

private func beaconingTwoRooms() -> Site {
    var site = twoRoomSite()
    for i in site.nodes.indices { site.nodes[i].beacon = "mac:c2:00:00:00:00:0\(i)" }
    return site
}

/// The robust step keeps the fit when one link is 12 dB off.
@Test func oneLinkTheWallsDoNotExplainBarelyMovesTheFit() throws {
    let site = beaconingTwoRooms()
    let offsets = [2.0, -3.0, 1.0, 0.0, -1.0, 1.0]   // dB each receiver hears loud; they sum to 0
    let links = modelLinks(site, offsets: offsets)
    let fit = try NodeBeaconCalibration.fit(site: site, links: links).get()
    #expect(abs(fit.absorption - 3.0) < 0.15, "\(fit.absorption)")
    for (node, offset) in zip(site.nodes, offsets) {
        #expect(abs((fit.rxAdj[node.name] ?? .nan) + offset) < 0.6, "\(node.name): \(fit.rxAdj)")
    }
    let odd = try #require(fit.links.first { $0.from == "w1" && $0.to == "e2" })
    #expect(odd.weight < 0.3 && odd.residual > 9)
}


/// When the robust loop runs out of steps, the weights reported are those of the last solve,
/// not the ones the next solve would have used: with no reweighting at all, every link weighs 1.
@Test func reportedWeightsAreTheFitsOwn() throws {
    let site = beaconingTwoRooms()
    let links = modelLinks(site, offsets: [2.0, -3.0, 1.0, 0.0, -1.0, 1.0])
    let plain = try NodeBeaconCalibration.fit(site: site, links: links, robustSteps: 0).get()
    #expect(plain.links.allSatisfy { $0.weight == 1 }, "\(plain.links.map(\.weight))")
    let odd = try #require(plain.links.first { $0.from == "w1" && $0.to == "e2" })
    #expect(odd.residual > 5)
}

/// A node hearing one link would fit it exactly (its own intercept): residual 0, rms 0, no
/// check. It is not calibrated, the others are as before, and applying the fit leaves its
/// rx_adj, and the site's tx_ref, as they were.
@Test func aNodeHearingOneLinkIsNotCalibrated() throws {
    var site = beaconingTwoRooms()
    site.nodes[5].rxAdj = 4
    site.positioning.txRefDefault = -62
    // e3 hears only w1, 9 dB loud: fitted exactly it would get rx_adj -9 and residual 0.
    let offsets = [2.0, -3.0, 1.0, 0.0, 0.0, 9.0]
    let links = modelLinks(site, offsets: offsets) { from, to in to != 5 || from == 0 }
    let fit = try NodeBeaconCalibration.fit(site: site, links: links).get()
    #expect(fit.uncalibrated == ["e3"])
    #expect(fit.rxAdj["e3"] == nil && fit.rxAdj.count == 5)
    #expect(fit.fewLinksIn == 1)
    #expect(fit.links(of: "e3").inbound.isEmpty && fit.links(of: "e3").outbound.count == 5)
    #expect(fit.links(of: "w1").inbound.count == 5 && fit.links(of: "w1").outbound.count == 4)
    #expect(fit.links.allSatisfy { $0.to != "e3" })
    for (node, offset) in zip(site.nodes.prefix(5), offsets) {
        #expect(abs((fit.rxAdj[node.name] ?? .nan) + offset) < 0.6, "\(node.name): \(fit.rxAdj)")
    }
    let applied = fit.applied(to: site)
    #expect(applied.nodes[5].rxAdj == 4)
    #expect(applied.positioning.txRefDefault == -62, "the beacons' level is not a tx_ref")
    #expect(applied.positioning.absorption == fit.absorption)
    #expect(zip(applied.nodes.prefix(5), site.nodes).allSatisfy { $0.rxAdj == fit.rxAdj[$1.name] })
}

/// The hat matrix's diagonal: 1 for a node's only row (its intercept follows it), and summing
/// to the number of unknowns fitted.
@Test func leverageIsTheHatDiagonal() {
    var system = ReceiverOffsetSystem(nodes: 3)
    let rows: [(Int, Double)] = [(0, -3), (0, -6), (0, -9), (1, -2), (1, -8), (2, -5)]
    for (node, basis) in rows { system.add(node: node, basis: basis, y: 0) }
    let h = rows.map { system.leverage(node: $0.0, basis: $0.1) }
    #expect(abs(h[5] - 1) < 1e-9)
    #expect(abs(h.reduce(0, +) - 4) < 1e-9, "\(h)")
    #expect(h.allSatisfy { $0 > 0 && $0 <= 1 + 1e-9 })
}

/// A frame announcing an impossible power (0, or below -127) is not taken as the beacon's tx:
/// it would shift every link of that node by tens of dB.
@Test func anImplausibleAnnouncedPowerIsIgnored() {
    var links = NodeBeaconLinks(nodeCount: 2)
    links.record(from: 0, to: 1, rssi: -70, tx: 0)
    #expect(links.announcedTx == [nil, nil])
    links.record(from: 0, to: 1, rssi: -70, tx: -59)
    links.record(from: 0, to: 1, rssi: -70, tx: -128)
    links.record(from: 0, to: 1, rssi: -70, tx: 12)
    #expect(links.announcedTx == [-59, nil])
    #expect(links.total == 4)
    let engine = Engine(site: NodeBeaconTests().beaconingSite())
    var id = NodeBeaconTests.e2Beacon
    _ = id.withUTF8 { engine.ingest(nodeIndex: 1, id: UnsafeRawBufferPointer($0), rssi: -80, tx: 0, t: 10) }
    #expect(engine.beaconLinks.announcedTx[4] == nil)
}

/// A link's counters never pass `binLimit` (no overflow however long the aggregator runs) and
/// old readings fade: a node moved 20 dB quieter is soon measured where it is now.
@Test func aBusyLinkIsHalvedAndForgetsOldReadings() {
    let limit = Int(NodeBeaconLinks.binLimit)
    var links = NodeBeaconLinks(nodeCount: 2)
    for _ in 0..<(limit - 1) { links.record(from: 0, to: 1, rssi: -60, tx: nil) }
    #expect(links.heard.map(\.count) == [limit - 1])
    links.record(from: 0, to: 1, rssi: -60, tx: nil)
    #expect(links.heard.map(\.count) == [limit / 2])
    for _ in 0..<(3 * limit) { links.record(from: 0, to: 1, rssi: -80, tx: nil) }
    let link = links.heard[0]
    #expect(link.median == -80)
    #expect(link.count < limit + limit / 8, "\(link.count): the old -60 dBm readings are mostly gone")
    #expect(links.total == 4 * limit)
}
