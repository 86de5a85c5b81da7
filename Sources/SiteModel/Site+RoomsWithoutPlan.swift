/// A site without a floor plan (the Bermuda / room-assistant set-up): floors without `bounds`,
/// rooms without `points`, nodes placed by `room:` instead of `point:`. Such a site has rooms
/// and no coordinates; the engine decides rooms from what the nodes in them hear and from
/// taught fingerprints (docs/operations.md, Rooms without a floor plan).
extension SiteDecoder {
    /// Whether any entry of a floor's `rooms` list has `points`: then the floor has a plan.
    static func anyRoomHasPoints(_ rooms: ConfigNode?) -> Bool {
        rooms?.items?.contains { $0["points"].map { !$0.isNull } ?? false } ?? false
    }

    /// Where a node entry places the node: a `point`, or a `room` (then the point is the origin,
    /// meaning nothing). One of the two, never both.
    mutating func nodePlace(_ f: Fields, _ node: ConfigNode, _ key: String, name: String?) -> (Point3?, String?) {
        let room = reader.string(f["room"], f.path("room"))
        if f["point"] != nil && f["room"] != nil {
            reader.error(f.path("room"), f["room"]?.line ?? node.line, "give the node a point or a room, not both")
            return (nil, nil)
        }
        if let room {
            roomNodeLines.append((name ?? "", room, f["room"]?.line ?? node.line, f.path("room"), f["floors"] != nil))
            return (Point3(0, 0, 0), room)
        }
        if f["room"] != nil { return (nil, nil) }
        guard let value = f["point"] else {
            reader.error(f.path("point"), node.line, "missing (on a site without a floor plan, give the room the node is in: room: ROOM)")
            return (nil, nil)
        }
        return (reader.point3(value, f.path("point")), nil)
    }

    /// The checks a site without a plan needs once every floor and room is known: every floor
    /// has a plan or none does, nodes sit in rooms of floors without one, zones need a plan.
    mutating func checkRoomsWithoutPlan() {
        let planned = site.floors.filter(\.hasPlan), unplanned = site.floors.filter { !$0.hasPlan }
        if let a = planned.first, !unplanned.isEmpty {
            for floor in unplanned {
                let at = locations.floors[floor.id] ?? SourceLocation(line: 0, key: "floors")
                reader.error(at.key + ".bounds", at.line, "floor '\(floor.id)' has no plan (no bounds, rooms without points) while floor '\(a.id)' has one: "
                             + "give every floor a plan or none")
            }
        }
        checkRoomNodes()
        if !unplanned.isEmpty && planned.isEmpty {
            for (node, at) in zip(site.nodes, nodeLines) where node.room == nil {
                reader.error(at.key + ".point", locations.nodes[node.name]?.line ?? at.line,
                             "node '\(node.name)': a site without a floor plan places nodes by the room they are in (room: ROOM), not by a point")
            }
        }
        let unplannedIDs = Set(unplanned.map(\.id))
        for (zone, at) in zip(site.zones, zoneLines) where unplannedIDs.contains(zone.floor) {
            reader.error(at.key, at.line, "zone '\(zone.id)' is on floor '\(zone.floor)', which has no plan: a zone's outline needs one")
        }
    }

    /// Each `room:` names a room of a floor without a plan; the node's floors default to that floor.
    private mutating func checkRoomNodes() {
        for entry in roomNodeLines {
            guard let floor = site.floors.first(where: { $0.rooms.contains { $0.id == entry.room } }) else {
                if !unnamedRoom {
                    let rooms = site.floors.flatMap { $0.rooms.map(\.id) }.sorted().joined(separator: ", ")
                    reader.error(entry.key, entry.line, "unknown room '\(entry.room)' (the site's rooms: \(rooms.isEmpty ? "none" : rooms))")
                }
                continue
            }
            if floor.hasPlan {
                reader.error(entry.key, entry.line, "room '\(entry.room)' is on floor '\(floor.id)', which has a plan: give the node's point instead")
                continue
            }
            guard let i = site.nodes.firstIndex(where: { $0.name == entry.node && $0.room == entry.room }) else { continue }
            if !entry.floorsGiven {
                site.nodes[i].floors = [floor.id]
            } else if !site.nodes[i].floors.contains(floor.id) {
                reader.error(entry.key, entry.line, "room '\(entry.room)' is on floor '\(floor.id)', which the node's floors leave out")
            }
        }
    }
}
