import Foundation
@testable import Positioning
import Testing
import TestSupport
import Wire
import SiteModel

/// The links' spread the receivers' prior is weighed against, and receivers' spreads that mean no prior.
@Suite struct NodeBeaconCalibrationLinkSpreadTests {
    static let offsets = [2.0, -1.5, 0.5, -3.0, 1.0, 2.5, -2.0, 0.5]

    /// Eight beaconing nodes on a circle of 5 m radius, every one hearing the other seven, each
    /// link off by its own draw of `linkNoise` dB (SD), as shadowing at the sender makes it.
    func ring(linkNoise: Double, seed: UInt64) -> (Site, NodeBeaconLinks) {
        var site = Site()
        site.floors = [Floor(id: "room", name: "Room", bounds: (Point3(0, 0, 0), Point3(12, 12, 2.5)))]
        site.nodes = Self.offsets.indices.map { i in
            let a = 2 * Double.pi * Double(i) / Double(Self.offsets.count)
            return Node(name: "n\(i)", point: Point3(6 + 5 * cos(a), 6 + 5 * sin(a), 1.5),
                        floors: ["room"], beacon: "mac:c2:00:00:00:00:0\(i)")
        }
        var generator = SeededGenerator(seed: seed)
        var links = NodeBeaconLinks(nodeCount: site.nodes.count)
        for from in site.nodes.indices {
            for to in site.nodes.indices where to != from {
                let d = distance(site.nodes[from].point, site.nodes[to].point)
                let rssi = PathLoss(exponent: 3).rssi(distance: d, txRef: -59) + Self.offsets[to] + linkNoise * generator.gaussian()
                for _ in 0..<20 { links.record(from: from, to: to, rssi: Int(rssi.rounded()), tx: -59) }
            }
        }
        return (site, links)
    }

    /// The spread is estimated once, by the fit without the prior: it is the links' own (4 dB
    /// here, within the sampling of 56 links), the same whatever the prior, and the prior's
    /// weight follows from it. Re-estimated with the prior on, it would grow with the prior,
    /// as the offsets the prior shrinks away land in the residuals.
    @Test(arguments: [UInt64(1), 2, 3]) func theLinkSpreadIsThePlainFits(seed: UInt64) throws {
        let (site, links) = ring(linkNoise: 4, seed: seed)
        let plain = try NodeBeaconCalibration.fit(site: site, links: links, receiverSpread: nil).get()
        #expect(plain.priorWeight == 0)
        #expect((3...5).contains(plain.linkSpread), "\(plain.linkSpread)")
        for receivers in [2.0, 0.5] {
            let held = try NodeBeaconCalibration.fit(site: site, links: links, receiverSpread: receivers).get()
            #expect(held.linkSpread == plain.linkSpread, "receivers \(receivers): \(held.linkSpread) against \(plain.linkSpread)")
            let expected = (plain.linkSpread / receivers) * (plain.linkSpread / receivers)
            #expect(abs(held.priorWeight - expected) < 1e-9 * expected, "receivers \(receivers): \(held.priorWeight)")
        }
    }

    /// A receivers' spread of 0 or less, or not finite, is no prior: the plain fit, never an
    /// infinite weight (whose fit would be NaN); 10⁻³⁰⁰ dB is a prior, at the capped weight.
    @Test(arguments: [0.0, -2, 1e-300, -.infinity, .infinity, .nan])
    func aSpreadThatIsNoSpreadIsThePlainFit(receivers: Double) throws {
        let (site, links) = ring(linkNoise: 4, seed: 1)
        let plain = try NodeBeaconCalibration.fit(site: site, links: links, receiverSpread: nil).get()
        let fit = NodeBeaconCalibration.fit(site: site, links: links, receiverSpread: receivers)
        if receivers == 1e-300 {
            // Positive and finite: a prior, so strong that it holds every offset at 0.
            let held = try fit.get()
            #expect(held.priorWeight == NodeBeaconCalibration.maximumPriorWeight)
            #expect(held.rxAdj.values.allSatisfy { abs($0) < 1e-3 } && held.absorption.isFinite, "\(held.rxAdj)")
        } else {
            let same = try fit.get()
            #expect(same.rxAdj == plain.rxAdj && same.absorption == plain.absorption && same.priorWeight == 0)
        }
    }
}
