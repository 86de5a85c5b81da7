@testable import Positioning
import Testing
import Wire
import SiteModel

/// The prior that holds each fitted `rx_adj` toward 0 (`NodeBeaconCalibration.receiverSpread`).
@Suite struct NodeBeaconCalibrationPriorTests {
    /// Four beaconing nodes at the corners of a 6 × 3 m room, no walls: every node hears the
    /// other three at 3 m, 6 m and 6.7 m, the same distances for each, so the exponent and the
    /// offsets do not share information and the prior's effect can be worked out by hand.
    func rectangle() -> Site { room([Point2(0, 0), Point2(6, 0), Point2(6, 3), Point2(0, 3)]) }

    /// One wall-less room 8 × 8 m with a beaconing node at each of `corners`.
    func room(_ corners: [Point2]) -> Site {
        var site = Site()
        site.floors = [Floor(id: "room", name: "Room", bounds: (Point3(0, 0, 0), Point3(8, 8, 2.5)))]
        site.nodes = corners.enumerated().map { i, p in
            Node(name: "n\(i)", point: Point3(p.x, p.y, 1.5), floors: ["room"], beacon: "mac:c2:00:00:00:00:0\(i)")
        }
        site.positioning.absorption = 2.5
        return site
    }

    /// Links by the model (exponent 3, announced -59 dBm) with receiver `to` loud by
    /// `offsets[to]` and each link off by `noise(from, to)`; 20 readings a link, the median
    /// exact to the rounding of whole dBm.
    func links(_ site: Site, offsets: [Double], noise: (Int, Int) -> Double = { _, _ in 0 }) -> NodeBeaconLinks {
        var links = NodeBeaconLinks(nodeCount: site.nodes.count)
        let model = PathLoss(exponent: 3)
        for from in site.nodes.indices {
            for to in site.nodes.indices where to != from {
                let d = distance(site.nodes[from].point, site.nodes[to].point)
                let rssi = model.rssi(distance: d, txRef: -59) + offsets[to] + noise(from, to)
                for _ in 0..<20 { links.record(from: from, to: to, rssi: Int(rssi.rounded()), tx: -59) }
            }
        }
        return links
    }

    /// Links that agree with each other give the offsets back with the prior on: the links'
    /// spread, estimated from their residuals, is the rounding's, so the prior weighs next to nothing.
    @Test func agreeingLinksGiveTheOffsetsBack() throws {
        let site = rectangle()
        let offsets = [3.0, -4.0, 2.5, -1.5]   // they sum to 0: the fit's gauge
        let fit = try NodeBeaconCalibration.fit(site: site, links: links(site, offsets: offsets)).get()
        for (node, offset) in zip(site.nodes, offsets) {
            #expect(abs((fit.rxAdj[node.name] ?? .nan) + offset) < 0.5, "\(node.name): \(fit.rxAdj)")
        }
        #expect(abs(fit.absorption - 3) < 0.1, "\(fit.absorption)")
    }

    /// By hand: with every node hearing m = 3 links at the same distances, the prior's weight
    /// λ = (link spread / receiver spread)² = (4 / 2)² = 4 shrinks each receiver's deviation
    /// from the mean by m / (m + λ) = 3 / 7 and leaves the exponent alone: minimising
    /// Σ (y − b_j − n·x)² + λ Σ (b_j − b̄)² over b_j gives m (ȳ_j − n·x̄ − b_j) = λ (b_j − b̄),
    /// and x̄ is every node's.
    @Test func thePriorShrinksEachOffsetByHowFewLinksItHas() throws {
        let site = rectangle()
        // Each link off by its own few dB, so the plain fit does not recover the offsets exactly.
        let data = links(site, offsets: [3.0, -4.0, 2.5, -1.5]) { from, to in Double((from * 7 + to * 3) % 5) - 2 }
        let plain = try NodeBeaconCalibration.fit(site: site, links: data, robustSteps: 0).get()
        let held = try NodeBeaconCalibration.fit(site: site, links: data, robustSteps: 0, receiverSpread: 2, linkSpread: 4).get()
        #expect(abs(held.absorption - plain.absorption) < 1e-9)
        // The prior holds offsets about their mean, not the beacons' common level.
        #expect(abs(held.beaconLevel - plain.beaconLevel) < 1e-9, "plain \(plain.beaconLevel), held \(held.beaconLevel)")
        for node in site.nodes {
            let p = try #require(plain.rxAdj[node.name]), h = try #require(held.rxAdj[node.name])
            #expect(abs(h - p * 3 / 7) < 1e-9, "\(node.name): plain \(p), held \(h)")
        }
        #expect(plain.rxAdj.values.contains { abs($0) > 1 })
    }

    /// The links' spread estimated from their residuals: links that disagree (a few dB each,
    /// as shadowing makes them) pull every fitted offset toward 0, and no offset's sign turns.
    @Test func disagreeingLinksArePulledTowardZero() throws {
        let site = rectangle()
        let data = links(site, offsets: [3.0, -4.0, 2.5, -1.5]) { from, to in Double((from * 7 + to * 3) % 5) * 2 - 4 }
        let plain = try NodeBeaconCalibration.fit(site: site, links: data, receiverSpread: nil).get()
        let held = try NodeBeaconCalibration.fit(site: site, links: data).get()
        for node in site.nodes {
            let p = try #require(plain.rxAdj[node.name]), h = try #require(held.rxAdj[node.name])
            #expect(abs(h) < abs(p) && h * p >= 0, "\(node.name): plain \(p), held \(h)")
        }
    }

    /// By hand, where the nodes' distances differ: every node hears m = 3 links, so for a given
    /// exponent n each intercept is b_j = (m·r_j + λ·r̄) / (m + λ), r_j = ȳ_j − n·x̄_j, and what is
    /// left to minimise over n is Σ (y − ȳ_j − n·(x − x̄_j))² + κ·Σ_j (ȳ_j − ȳ̄ − n·(x̄_j − x̄̄))²,
    /// κ = m·λ / (m + λ): the within-node slope (λ = 0) moves toward the pooled one (λ → ∞).
    @Test func thePriorMovesTheExponentTowardThePooledSlope() throws {
        let site = room([Point2(0, 0), Point2(5, 0), Point2(7, 4), Point2(1, 3)])
        let noise: (Int, Int) -> Double = { from, to in Double((from * 7 + to * 3) % 5) - 2 }
        let data = links(site, offsets: [3.0, -4.0, 2.5, -1.5], noise: noise)
        // The rows as the fit sees them: x = −10·log10(d), y the whole-dBm median less the announced power.
        let rows = site.nodes.indices.map { to in
            site.nodes.indices.filter { $0 != to }.map { from -> (x: Double, y: Double) in
                let d = distance(site.nodes[from].point, site.nodes[to].point)
                let rssi = PathLoss(exponent: 3).rssi(distance: d, txRef: -59) + [3.0, -4.0, 2.5, -1.5][to] + noise(from, to)
                return (-10 * Elementary.log10(d), rssi.rounded() + 59)
            }
        }
        func mean(_ v: [Double]) -> Double { v.reduce(0, +) / Double(v.count) }
        func exponent(lambda: Double) -> Double {
            let kappa = 3 * lambda / (3 + lambda)
            let xm = rows.map { mean($0.map(\.x)) }, ym = rows.map { mean($0.map(\.y)) }
            var num = 0.0, den = 0.0
            for (j, node) in rows.enumerated() {
                for r in node { num += (r.x - xm[j]) * (r.y - ym[j]); den += (r.x - xm[j]) * (r.x - xm[j]) }
                num += kappa * (xm[j] - mean(xm)) * (ym[j] - mean(ym)); den += kappa * (xm[j] - mean(xm)) * (xm[j] - mean(xm))
            }
            return num / den
        }
        let plain = try NodeBeaconCalibration.fit(site: site, links: data, robustSteps: 0).get()
        let held = try NodeBeaconCalibration.fit(site: site, links: data, robustSteps: 0, receiverSpread: 2, linkSpread: 4).get()
        #expect(abs(plain.absorption - exponent(lambda: 0)) < 1e-9, "plain \(plain.absorption)")
        #expect(abs(held.absorption - exponent(lambda: 4)) < 1e-9, "held \(held.absorption)")
        #expect(abs(held.absorption - plain.absorption) > 0.01, "the case must move the exponent: \(plain.absorption)")
        // Left to itself, the fit weighs the prior by the plain fit's spread, and solves with that weight.
        let auto = try NodeBeaconCalibration.fit(site: site, links: data, robustSteps: 0, receiverSpread: 2).get()
        #expect(auto.linkSpread == plain.linkSpread && plain.linkSpread > 0)
        let lambda = (plain.linkSpread / 2) * (plain.linkSpread / 2)
        #expect(abs(auto.absorption - exponent(lambda: lambda)) < 1e-9, "auto \(auto.absorption), λ \(lambda)")
    }
}
