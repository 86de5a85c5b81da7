import Testing
@testable import Positioning
import Wire
import SiteModel

/// The seam room evidence comes in by (`RoomEvidence`, `RoomEvidenceSource`): what a source
/// writes reaches the solve under way, and nothing of it outlives the solve.
struct RoomEvidenceTests {
    @Test func addingAndResettingTouchesOnlyWhatWasWritten() {
        var evidence = RoomEvidence(rooms: 4)
        #expect(!evidence.isInformative)
        evidence.add(-2, room: 1)
        evidence.add(-1, room: 1)
        evidence.add(0.5, room: 3)
        evidence.add(7, room: 9)
        evidence.add(.nan, room: 0)
        #expect(evidence.logLikelihood == [0, -3, 0, 0.5])
        #expect(evidence.touched == [1, 3])
        #expect(evidence.isInformative)
        evidence.reset()
        #expect(evidence.logLikelihood == [0, 0, 0, 0])
        #expect(evidence.touched.isEmpty && evidence.away == 0 && !evidence.isInformative)
    }

    /// Says the device is in the east room, by the loudest node's name.
    struct LoudestNodeSays: RoomEvidenceSource {
        func addEvidence(from observations: [Observation], floor: Int, site: SiteGeometry, into evidence: inout RoomEvidence) {
            guard let loudest = observations.max(by: { $0.rssi - $0.txRef < $1.rssi - $1.txRef }) else { return }
            evidence.add(-1, room: site.nodes[Int(loudest.node)].name.hasPrefix("e") ? 0 : 1)
        }
    }

    @Test func anEngineAsksItsSourcesAtEverySolve() {
        var rng = SeededGenerator(seed: 5)
        let site = twoRoomSite()
        let engine = Engine(site: site)
        engine.roomEvidenceSources = [LoudestNodeSays()]
        _ = run(engine, simulate(site: site, from: 0, to: 20, noise: 2, rng: &rng) { _ in Point3(8, 2, 1) })
        #expect(engine.solves > 0)
        // The last solve's evidence: the device is in the east room, so its loudest node is an e-node.
        #expect(engine.roomEvidence.logLikelihood == [-1, 0])
    }
}
