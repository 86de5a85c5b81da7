import Foundation
import Testing
@testable import Positioning
import Wire
import SiteModel

/// The real walks of the philotuxo dataset (Tests/Fixtures/philotuxo, CC0).
struct RealWalkTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/philotuxo").path

    static func load() throws -> ([Node], [Walk]) {
        let receivers = try Philotuxo.receivers(devices: String(contentsOfFile: directory + "/cnf/tetam.dev", encoding: .utf8))
        let walks = try (1...5).map { i in
            let name = "straight_0\(i)"
            return try Philotuxo.walk(name: name, text: String(contentsOfFile: directory + "/trk/\(name)_all_sensors.mbd", encoding: .utf8))
        }
        return (receivers, walks)
    }

    @Test func theDatasetParses() throws {
        let (receivers, walks) = try Self.load()
        #expect(receivers.count == 12)
        #expect(receivers.first { $0.name == "b827eb4521b4" }?.point == Point3(7.00, 7.09, 1.22))
        #expect(walks.map(\.readings.count) == [1365, 1240, 1061, 558, 3465])
        // The merged files are not quite in time order; the parser sorts them.
        #expect(walks.allSatisfy { w in zip(w.readings, w.readings.dropFirst()).allSatisfy { $0.reading.t <= $1.reading.t } })
    }

    @Test func defaultBeatsBothBaselinesOnARealWalkWithAnHonestCalibration() throws {
        let (receivers, walks) = try Self.load()
        // Calibrated on the other four walks only; measured on the first.
        let calibration = try #require(Calibration.fit(walks: Array(walks.dropFirst()), nodes: receivers))
        #expect(calibration.absorption > 1 && calibration.absorption < 3)
        let site = calibration.applied(to: Philotuxo.site(receivers: receivers))
        let walk = walks[0]
        let ours = replay(walk, site: site, locator: .default)
        let nearest = replay(walk, site: site, locator: .nearest)
        let nelderMead = replay(walk, site: site, locator: .nelderMead)
        #expect(ours.count > 100)
        // 0.95 m when written (docs/accuracy.md); the margin absorbs small solver changes.
        #expect(ours.median < 1.15, "default median \(ours.median) m")
        #expect(ours.median < nearest.median, "default \(ours.median) m vs nearest \(nearest.median) m")
        #expect(ours.median < nelderMead.median && ours.p90 < nelderMead.p90,
                "default \(ours.median) / \(ours.p90) m vs nelder-mead \(nelderMead.median) / \(nelderMead.p90) m")
    }
}

struct CalibrationResidualTests {
    @Test func residualsShowWhichReceiverIsLouderThanTheModel() throws {
        let nodes = [Node(name: "a", point: Point3(0, 0, 1)), Node(name: "b", point: Point3(10, 0, 1)),
                     Node(name: "c", point: Point3(5, 8, 1))]
        let calibration = Calibration(absorption: 2, txRef: -60, rxAdj: ["a": 0, "b": 0, "c": 0])
        let model = PathLoss(exponent: 2)
        var readings: [(node: String, reading: Reading)] = []
        var truth: [(t: Double, position: Point3)] = []
        for step in 0..<60 {
            let t = Double(step) * 0.1
            let p = Point3(1 + Double(step) * 0.1, 3, 1)
            for node in nodes {
                // Whole dB, as radios report; node b hears 4 dB louder than the model says.
                let rssi = model.rssi(distance: distance(p, node.point), txRef: -60) + (node.name == "b" ? 4 : 0)
                readings.append((node.name, Reading(id: "mac:x", rssi: Int(rssi.rounded()), t: t, kind: .mac)))
                truth.append((t, p))
            }
        }
        let (rms, perNode) = calibration.residuals(of: Walk(name: "w", readings: readings, truth: truth), nodes: nodes)
        #expect(abs((perNode["b"] ?? 0) - 4) < 0.3, "\(perNode)")
        #expect(abs(perNode["a"] ?? 9) < 0.3 && abs(perNode["c"] ?? 9) < 0.3, "\(perNode)")
        // Only b is off: the RMS is about 4 / √3 plus rounding.
        #expect(abs(rms - 4 / 3.0.squareRoot()) < 0.3, "\(rms)")
    }
}
