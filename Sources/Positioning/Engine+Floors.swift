import Wire
import SiteModel

extension Engine {
    /// The floor choice (`FloorChoice`): solves on each floor the strongest nodes hear (up to
    /// `FloorChoice.floorsTried`), each on its own nodes, and keeps the best-scored fix.
    func bestFix(device d: Int, at t: Double) -> Fix? {
        guard geometry.floors.count > 1 else { return solve(device: d, floor: 0, at: t, all: true) }
        var best: Fix?
        var bestScore = Double.infinity
        var tried: (Int, Int, Int) = (-1, -1, -1)
        var solidFloors = 0
        for _ in 0..<FloorChoice.floorsTried {
            guard let f = strongestUntriedFloor(excluding: tried) else { break }
            tried = (tried.1, tried.2, f)
            guard let fix = solve(device: d, floor: f, at: t, all: false) else { continue }
            // The other floors' nodes that hear the device louder than a fix here allows count
            // against this floor too (`otherFloorsCost`; the default locator's, 0 for the others).
            let against = locator.otherFloorsCost(observations, fix: fix, site: geometry, model: model) / Double(max(fix.fixes, 1))
            let score = floorChoice.score(fix, against: against, isTrackedFloor: f == devices[d].track.floor)
            if floorChoice.isSolid(fix) { solidFloors += 1 }
            if score < bestScore { best = fix; bestScore = score }
        }
        best?.floorContested = solidFloors >= 2
        return best
    }

    private func solve(device d: Int, floor f: Int, at t: Double, all: Bool) -> Fix? {
        guard geometry.floors.indices.contains(f) else { return nil }
        let track = devices[d].track
        let hint = track.isStarted && track.floor == f ? track.predicted(at: t) : nil
        let model = selfCalibration.model(floor: f, base: model)
        if all { return locator.locate(&observations, floor: f, site: geometry, model: model, hint: hint) }
        floorObservations.removeAll(keepingCapacity: true)
        for o in observations where geometry.nodes[Int(o.node)].floors.contains(f) { floorObservations.append(o) }
        return locator.locate(&floorObservations, floor: f, site: geometry, model: model, hint: hint)
    }

    /// The floor of the strongest observation whose floors are not all tried yet.
    private func strongestUntriedFloor(excluding tried: (Int, Int, Int)) -> Int? {
        var best: (floor: Int, score: Double)?
        for o in observations {
            for f in geometry.nodes[Int(o.node)].floors where f != tried.0 && f != tried.1 && f != tried.2 {
                let score = o.rssi - o.txRef
                if score > (best?.score ?? -.infinity) { best = (f, score) }
            }
        }
        return best?.floor
    }

    /// The observation heard strongest for its reference power.
    func strongestObservation() -> Observation? {
        guard var best = observations.first else { return nil }
        for o in observations.dropFirst() where o.rssi - o.txRef > best.rssi - best.txRef { best = o }
        return best
    }

    /// The node of `best` seen from `p`, with the distance the model gives through walls.
    func range(of best: Observation, from p: Point3, floor: Int) -> NodeRange {
        let walls = geometry.wallLoss(floor: floor, from: p.xy, to: best.position.xy)
        let d = model.distance(rssi: best.rssi, txRef: best.txRef, walls: walls)
        return NodeRange(node: geometry.nodes[Int(best.node)].name, distance: d, proximity: Proximity(distance: d))
    }

    func update(device d: Int, at t: Double, nearest: NodeRange?) -> DeviceUpdate {
        // Each field read in place: a copy of the whole `DeviceState` retained and released
        // every array it holds, once per update.
        let p = devices[d].track.reported
        let (roomIndex, floorIndex) = (devices[d].presence.room, devices[d].presence.floor)
        let room = roomIndex >= 0 ? geometry.rooms[roomIndex].id : nil
        let floor = floorIndex >= 0 ? geometry.floors[floorIndex].id : nil
        var zones: [String] = []
        for v in devices[d].presence.visits where v.inside { zones.append(geometry.zones[v.zone].id) }
        var update = DeviceUpdate(id: devices[d].id, name: devices[d].name, t: t, x: p.x, y: p.y, z: p.z, floor: floor,
                                  room: devices[d].isPresent ? room : nil, zones: zones, confidence: devices[d].confidence,
                                  fixes: devices[d].fixes, since: devices[d].presence.roomSince, nearest: nearest,
                                  residual: devices[d].residual, device: d)
        if devices[d].isPresent { devices[d].presence.posterior.top(RoomShares.most, into: &update.rooms, site: geometry) }
        return update
    }

    func event(_ kind: ZoneEvent.Kind, device d: Int, zone: Int, isRoom: Bool, at t: Double,
               confidence: Double, dwell: Double?) -> ZoneEvent {
        let area = isRoom ? geometry.rooms[zone] : geometry.zones[zone]
        let floor = geometry.floors.indices.contains(area.floor) ? geometry.floors[area.floor].id : nil
        return ZoneEvent(type: kind, device: devices[d].id, zone: area.id, floor: floor, t: t,
                         confidence: confidence, dwell: dwell, isRoom: isRoom)
    }
}
