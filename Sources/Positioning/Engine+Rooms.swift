import Wire
import SiteModel

/// Rooms on a site without a floor plan (`Site.hasFloorPlan`): no locator runs and no position
/// is made; each solve hands the room posterior what the nodes heard (`RoomEvidence`, from the
/// node-room and fingerprint sources below) and the update carries the room and no coordinates.
extension Engine {
    /// The room evidence sources `site` asks for: taught fingerprints where the calibration has
    /// them; without a floor plan, the rooms the nodes are in, beside fingerprints only while
    /// too few of the nodes they know are live. (Fingerprints know what each node hears in each
    /// room, including the node's own; the node-room rule beside them pulled toward rooms a node
    /// merely faces: a study node loudest in the living room.)
    static func roomEvidenceSources(site: Site, geometry: SiteGeometry, liveness: NodeLiveness) -> [any RoomEvidenceSource] {
        if let set = site.fingerprints {
            let prints = RoomFingerprints(set, rooms: geometry.rooms.map(\.id), nodes: geometry.nodes.map(\.name))
            if !prints.isEmpty {
                let taught = FingerprintEvidence(prints, liveness: liveness)
                return site.hasFloorPlan ? [taught] : [taught, NodeRoomEvidence(geometry, fallback: taught)]
            }
        }
        return site.hasFloorPlan ? [] : [NodeRoomEvidence(geometry)]
    }

    /// One solve of device `d` on a site without a floor plan: the floor of the loudest node,
    /// the room from the posterior, an update with `x`, `y`, `z` not a number (no position).
    func solveWithoutPlan(device d: Int, at t: Double, into output: inout [EngineOutput]) -> Bool {
        guard let loudest = strongestObservation() else { return false }
        solves += 1
        let floor = geometry.nodes[Int(loudest.node)].floors.first ?? 0
        devices[d].confidence = nodeLiveness.shareHeard(observations.count)
        devices[d].residual = 0
        devices[d].fixes = observations.count
        devices[d].isPresent = true
        // The rooms' own nodes speak through the evidence sources (`NodeRoomEvidence`, which
        // holds back beside taught fingerprints), so the posterior's own node rule hears nothing:
        // `roomLoudness` stays unmeasured.
        gatherRoomEvidence(floor: floor)
        var presence = takePresence(d)
        let confidence = devices[d].confidence
        presence.observe(fix: nil, floor: floor, heard: roomLoudness, evidence: roomEvidence, at: t, site: geometry,
                         options: options) { kind, zone, isRoom, dwell in
            output.append(.event(event(kind, device: d, zone: zone, isRoom: isRoom, at: t, confidence: confidence, dwell: dwell)))
        }
        devices[d].presence = presence
        var u = update(device: d, at: t, nearest: range(of: loudest, from: loudest.position, floor: floor))
        u.x = .nan; u.y = .nan; u.z = .nan
        output.append(.update(u))
        return true
    }
}

/// When each node last heard any device, shared by the engine (which writes it once a batch)
/// and the fingerprint source (which leaves out nodes silent for `silentAfter`). A class so
/// that the source reads what the engine writes; both belong to one engine, which one thread
/// owns (`Engine`), hence `@unchecked Sendable`.
final class NodeLiveness: @unchecked Sendable {
    /// Seconds of event time without a reading after which a node counts as off: a node that
    /// hears nobody for ten minutes says nothing by not hearing a device.
    static let silentAfter = 600.0
    private(set) var lastHeard: [Double]
    /// The newest reading time of any node: the clock liveness is judged by.
    private(set) var newest = -Double.infinity

    init(nodes: Int) { lastHeard = Array(repeating: -.infinity, count: nodes) }

    func heard(_ n: Int, at t: Double) {
        guard lastHeard.indices.contains(n), t.isFinite else { return }
        if t > lastHeard[n] { lastHeard[n] = t }
        if t > newest { newest = t }
    }

    func isLive(_ n: Int) -> Bool { newest - lastHeard[n] <= Self.silentAfter }

    /// `heard` nodes as a share of the live ones (at most 1): the update's confidence.
    func shareHeard(_ heard: Int) -> Double {
        var live = 0
        for n in lastHeard.indices where isLive(n) { live += 1 }
        return min(Double(heard) / Double(max(live, 1)), 1)
    }
}
