import Wire

/// Checks that need more than one value: outlines, unique ids, and references between entries.
extension SiteDecoder {
    /// Metres within which a node or a room corner still counts as inside a floor's box.
    static let boundsTolerance = 0.05

    /// A room or zone outline: at least three distinct corners, an area, no crossing edges.
    /// A last corner repeating the first (ESPresense-companion writes them so) is dropped.
    mutating func polygon(_ node: ConfigNode, _ key: String) -> [Point2]? {
        guard let raw = reader.points(node, key, minimum: 3) else { return nil }
        var points: [Point2] = []
        for p in raw where points.last != p { points.append(p) }
        if points.count > 1, points.first == points.last { points.removeLast() }
        guard points.count >= 3 else {
            reader.error(key, node.line, "needs at least 3 distinct points, got \(points.count)")
            return nil
        }
        guard abs(Polygon.signedArea(points)) > 1e-9 || points.count > 3 && Self.crossingEdges(points) != nil else {
            reader.error(key, node.line, "has no area: its points lie on one line")
            return nil
        }
        if let (i, j) = Self.crossingEdges(points) {
            let line = node.items.flatMap { j < $0.count ? $0[j].line : nil } ?? node.line
            reader.error(key, line, "outline crosses itself: the edge after point \(i) meets the edge after point \(j)")
            return nil
        }
        return points
    }

    /// The first two edges that meet, other than neighbours at their shared corner.
    static func crossingEdges(_ p: [Point2]) -> (Int, Int)? {
        let n = p.count
        for i in 0..<n {
            for j in (i + 2)..<max(n, i + 2) where !(i == 0 && j == n - 1) {
                if Segment.intersects(p[i], p[(i + 1) % n], p[j], p[(j + 1) % n]) { return (i, j) }
            }
        }
        return nil
    }

    mutating func crossCheck() {
        checkUniqueIDs()
        // The first device entry of an id is the one the engine would take.
        for (id, at) in beaconLines.sorted(by: { $0.value.line < $1.value.line }) {
            guard let device = deviceLines[id] else { continue }
            reader.error(at.key, at.line, "'\(id)' is also a device (\(device.key), line \(device.line)): "
                         + "a node's own advertisements are never tracked; remove one of them")
        }
        let roomIDs = declaredRooms.values.reduce(into: Set<String>()) { $0.formUnion($1) }
        let floorIDs = Set(site.floors.map(\.id))
        for (fi, floor) in site.floors.enumerated() {
            let here = declaredRooms[floor.id] ?? []
            for (di, door) in floor.doors.enumerated() where di < doorLines[fi].count {
                let at = doorLines[fi][di]
                for room in [door.between.0, door.between.1] where !here.contains(room) && !unnamedRoom {
                    let other = roomIDs.contains(room) ? " (it is on another floor)" : ""
                    reader.error(at.key + ".between", at.line, "no room '\(room)' on floor '\(floor.id)'\(other)")
                }
            }
            if !floorsWithoutBounds.contains(floor.id) { checkRoomsInside(floor) }
        }
        // A floor whose id could not be read may be the one a reference names: say nothing.
        for (zone, at) in zip(site.zones, zoneLines) where !floorIDs.contains(zone.floor) && !unnamedFloor {
            reader.error(at.key, at.line, "unknown floor '\(zone.floor)'")
        }
        for entry in nodeFloors {
            for floor in entry.floors where !floorIDs.contains(floor) && !unnamedFloor {
                reader.error(entry.key + ".floors", entry.line, "unknown floor '\(floor)'")
            }
        }
        for (node, at) in zip(site.nodes, nodeLines) where node.room == nil { checkNodeInside(node, at) }
        checkRoomsWithoutPlan()
    }

    /// Ids must be unique within their kind; zones share the room namespace (docs/protocol.md#mqtt-topics-and-payloads: a room is a zone).
    private mutating func checkUniqueIDs() {
        var first: [String: Int] = [:]
        var slugs: [String: (id: String, line: Int)] = [:]
        for entry in idLines {
            let namespace = entry.kind == "zone" ? "room" : entry.kind
            let slot = namespace + "\u{0}" + entry.id
            if let line = first[slot] {
                reader.error(entry.key, entry.line, "duplicate \(entry.kind) id '\(entry.id)' (first at line \(line))")
            } else {
                first[slot] = entry.line
            }
            // Home Assistant discovery names a room or zone by its slug; two that share one
            // get a hash-suffixed object id (`Topics.discoveryObjectIDs`), which is unreadable.
            guard namespace == "room" else { continue }
            let slug = Topics.slug(entry.id)
            if let other = slugs[slug], other.id != entry.id {
                reader.warning(entry.key, entry.line, "\(entry.kind) '\(entry.id)' and '\(other.id)' (line \(other.line)) are both '\(slug)' "
                               + "to Home Assistant, so discovery tells them apart by a hash of the id (e.g. '\(slug)_1a2b3c4d'): rename one for readable entity ids")
            } else if slugs[slug] == nil {
                slugs[slug] = (entry.id, entry.line)
            }
        }
    }

    private mutating func checkRoomsInside(_ floor: Floor) {
        let tolerance = Self.boundsTolerance
        for room in floor.rooms {
            let outside = room.points.contains {
                $0.x < floor.bounds.min.x - tolerance || $0.x > floor.bounds.max.x + tolerance
                    || $0.y < floor.bounds.min.y - tolerance || $0.y > floor.bounds.max.y + tolerance
            }
            if outside, let at = locations.rooms[room.id] {
                reader.warning(at.key + ".points", at.line, "room '\(room.id)' reaches outside floor '\(floor.id)''s bounds")
            }
        }
    }

    /// A node outside every floor it serves is usually a typo; ESPresense-companion's own example
    /// has one (a car outside the house), so it is a warning, not an error.
    private mutating func checkNodeInside(_ node: Node, _ at: (line: Int, key: String)) {
        let floors = site.floors.filter { node.floors.isEmpty || node.floors.contains($0.id) }
        guard !floors.isEmpty, !floors.contains(where: { floorsWithoutBounds.contains($0.id) }) else { return }
        let t = Self.boundsTolerance
        let inside = floors.contains { f in
            (f.bounds.min.x - t...f.bounds.max.x + t).contains(node.point.x)
                && (f.bounds.min.y - t...f.bounds.max.y + t).contains(node.point.y)
                && (f.bounds.min.z - t...f.bounds.max.z + t).contains(node.point.z)
        }
        if !inside {
            let p = node.point
            reader.warning(at.key + ".point", locations.nodes[node.name]?.line ?? at.line,
                           "node '\(node.name)' at [\(p.x), \(p.y), \(p.z)] is outside the bounds of every floor it serves")
        }
    }
}
