import Wire
import SiteModel

/// Taught fingerprints as room evidence: each solve's levels scored against every room of the
/// device's floor (`RoomFingerprints.addLogLikelihoods`), nodes off (`NodeLiveness`) left out.
/// Holds its scratch buffers, so a solve allocates nothing; one engine's, as `NodeLiveness`.
final class FingerprintEvidence: RoomEvidenceSource, @unchecked Sendable {
    let prints: RoomFingerprints
    let liveness: NodeLiveness
    private var levels: [Double], live: [Bool], scores: [Double]

    init(_ prints: RoomFingerprints, liveness: NodeLiveness) {
        self.prints = prints; self.liveness = liveness
        levels = Array(repeating: -.infinity, count: prints.nodeCount)
        live = Array(repeating: true, count: prints.nodeCount)
        scores = Array(repeating: 0, count: prints.roomCount)
    }

    /// Live nodes the fingerprints know, fewer than which `NodeRoomEvidence` speaks beside them.
    static let enoughNodes = 2

    /// Whether enough of the nodes the fingerprints know are live (`enoughNodes`).
    var isEnough: Bool {
        var live = 0
        for n in 0..<prints.nodeCount where prints.known[n] && liveness.isLive(n) { live += 1 }
        return live >= Self.enoughNodes
    }

    func addEvidence(from observations: [Observation], floor: Int, site: SiteGeometry, into evidence: inout RoomEvidence) {
        guard site.floors.indices.contains(floor) else { return }
        for o in observations where Int(o.node) < levels.count { levels[Int(o.node)] = o.rssi - o.txRef }
        for n in live.indices { live[n] = liveness.isLive(n) }
        let rooms = site.floors[floor].rooms
        for r in rooms where r < scores.count { scores[r] = 0 }
        prints.addLogLikelihoods(levels: levels, live: live, rooms: rooms, into: &scores)
        // Up to a constant shared by the floor's rooms: the best room at 0 keeps the sums small.
        var best = -Double.infinity
        for r in rooms where r < scores.count { best = max(best, scores[r]) }
        if best.isFinite {
            for r in rooms where r < scores.count { evidence.add(scores[r] - best, room: r) }
            evidence.away = min(evidence.away, -RoomEvidence.heardNotAway)
        }
        for o in observations where Int(o.node) < levels.count { levels[Int(o.node)] = -.infinity }
    }
}

/// A site without a floor plan: a room is as likely as its own node is loud beside the loudest
/// node of the floor (`perDB` nats a dB, at most `gap` dB below); a room with no node, or whose
/// node did not hear the device, counts as `gap` dB below. The nearest-node rule with a margin
/// (Bermuda's, room-assistant's), as evidence for the posterior. Beside taught fingerprints
/// (`fallback`) it speaks only while fewer than `FingerprintEvidence.enoughNodes` of the nodes
/// they know are live: where the teach-in's nodes are gone, the nodes there now decide.
struct NodeRoomEvidence: RoomEvidenceSource {
    static let perDB = 0.3
    static let gap = 20.0
    /// Per node, its room (the engine's index), -1 for none.
    let nodeRooms: [Int]
    let fallback: FingerprintEvidence?

    init(_ site: SiteGeometry, fallback: FingerprintEvidence? = nil) { nodeRooms = site.nodeRooms; self.fallback = fallback }

    func addEvidence(from observations: [Observation], floor: Int, site: SiteGeometry, into evidence: inout RoomEvidence) {
        guard site.floors.indices.contains(floor), fallback?.isEnough != true else { return }
        var best = -Double.infinity
        for o in observations where site.nodes[Int(o.node)].floors.contains(floor) { best = max(best, o.rssi - o.txRef) }
        guard best.isFinite else { return }
        for r in site.floors[floor].rooms {
            var loudest = -Double.infinity
            for o in observations where Int(o.node) < nodeRooms.count && nodeRooms[Int(o.node)] == r { loudest = max(loudest, o.rssi - o.txRef) }
            evidence.add(-Self.perDB * min(best - loudest, Self.gap), room: r)
        }
        evidence.away = min(evidence.away, -RoomEvidence.heardNotAway)
    }
}

extension RoomEvidence {
    /// Nats against `away` for a device a node of the floor hears now, beside the best room's
    /// zero: heard is not gone. Away is the engine's silence rule (`away_after`).
    static let heardNotAway = 10.0
}
