/// Where a site's geometry will make positioning weak. Pure geometry over the decoded model;
/// `whereabouts check-site` prints these as warnings.
public enum CoverageRule {
    /// A node "hears" a room when the line from the node to a point well inside the room,
    /// `deviceHeight` above the floor, is at most `range` metres long and crosses at most
    /// `maxWalls` wall segments. BLE at 2.4 GHz indoors stays usable to about 10 m.
    public static let range = 10.0
    public static let maxWalls = 2
    public static let deviceHeight = 1.0
    /// Nodes heard per room needed to fix a position in the plane.
    public static let minimumNodes = 3
    /// Nodes in a band narrower than this many metres, or than `collinearFraction` of the
    /// band's length, are nearly collinear.
    public static let collinearSpread = 0.5
    public static let collinearFraction = 0.1
}

extension Site {
    /// Warnings about coverage and layout: rooms without a node, rooms heard by fewer than three
    /// nodes, nodes nearly on one line, rooms that overlap.
    public func geometryWarnings(locations: SiteLocations) -> [SiteProblem] {
        var out: [SiteProblem] = []
        // A duplicated floor or room id is an error already, and the location is the first's:
        // judging the duplicate too printed the first's warnings twice.
        var floorsSeen: Set<String> = [], roomsSeen: Set<String> = []
        for floor in floors where floorsSeen.insert(floor.id).inserted {
            let nodes = self.nodes.filter { $0.floors.isEmpty || $0.floors.contains(floor.id) }
            guard floor.hasPlan else { out += unplannedWarnings(floor, nodes, locations, roomsSeen: &roomsSeen); continue }
            for room in floor.rooms where roomsSeen.insert(room.id).inserted {
                let at = locations.rooms[room.id] ?? SourceLocation(line: 0, key: "")
                out += coverageWarnings(room, floor, nodes, at)
            }
            let at = locations.floors[floor.id] ?? SourceLocation(line: 0, key: "")
            if let warning = collinearityWarning(floor, nodes, at) { out.append(warning) }
            out += overlapWarnings(floor, locations)
        }
        return out
    }

    private func coverageWarnings(_ room: Room, _ floor: Floor, _ nodes: [Node], _ at: SourceLocation) -> [SiteProblem] {
        var out: [SiteProblem] = []
        let inside = nodes.contains { node in
            Polygon.contains(room.points, node.point.xy) && node.point.z >= floor.bounds.min.z && node.point.z <= floor.bounds.max.z
        }
        if !inside {
            out.append(SiteProblem(.warning, line: at.line, key: at.key, message: "room '\(room.id)' has no node inside it"))
        }
        let inner = Self.interiorPoint(room.points)
        let target = Point3(inner.x, inner.y, floor.bounds.min.z + CoverageRule.deviceHeight)
        let hearing = nodes.filter { node in
            let dx = node.point.x - target.x, dy = node.point.y - target.y, dz = node.point.z - target.z
            return (dx * dx + dy * dy + dz * dz).squareRoot() <= CoverageRule.range
                && Self.wallsCrossed(floor.walls, node.point.xy, target.xy) <= CoverageRule.maxWalls
        }
        if hearing.count < CoverageRule.minimumNodes {
            let names = hearing.isEmpty ? "none" : hearing.map(\.name).joined(separator: ", ")
            out.append(SiteProblem(.warning, line: at.line, key: at.key,
                                   message: "room '\(room.id)' is heard by \(hearing.count) node(s) within \(Int(CoverageRule.range)) m "
                                       + "through at most \(CoverageRule.maxWalls) walls (\(names)); positions there rest on fewer than \(CoverageRule.minimumNodes) distances"))
        }
        return out
    }

    /// Nodes on one line leave a mirror ambiguity across it; fewer than three cannot fix a point.
    private func collinearityWarning(_ floor: Floor, _ nodes: [Node], _ at: SourceLocation) -> SiteProblem? {
        guard !nodes.isEmpty else {
            return SiteProblem(.warning, line: at.line, key: at.key, message: "floor '\(floor.id)' has no node")
        }
        guard nodes.count >= CoverageRule.minimumNodes else {
            return SiteProblem(.warning, line: at.line, key: at.key,
                               message: "floor '\(floor.id)' has \(nodes.count) node(s); a position in the plane needs \(CoverageRule.minimumNodes)")
        }
        let band = Self.lineBand(nodes.map(\.point.xy))
        guard band.width < max(CoverageRule.collinearSpread, CoverageRule.collinearFraction * band.length) else { return nil }
        return SiteProblem(.warning, line: at.line, key: at.key,
                           message: "the nodes of floor '\(floor.id)' lie nearly on one line (\(Self.rounded(band.width)) m across, "
                               + "\(Self.rounded(band.length)) m along it); "
                               + "positions mirror across that line")
    }

    /// Rooms partition a floor: any area inside two rooms is reported, estimated on a grid.
    private func overlapWarnings(_ floor: Floor, _ locations: SiteLocations) -> [SiteProblem] {
        var out: [SiteProblem] = []
        let rooms = floor.rooms
        for i in rooms.indices {
            for j in rooms.indices where j > i {
                let area = Self.overlapArea(rooms[i].points, rooms[j].points)
                guard area > 0 else { continue }
                let at = locations.rooms[rooms[j].id] ?? SourceLocation(line: 0, key: "")
                out.append(SiteProblem(.warning, line: at.line, key: at.key + ".points",
                                       message: "rooms '\(rooms[i].id)' and '\(rooms[j].id)' overlap (about \(Self.rounded(area)) m²); rooms must partition a floor"))
            }
        }
        return out
    }
}

extension Site {
    /// A floor without a plan: a room no node is in is told only by taught fingerprints, and a
    /// floor without nodes by nothing.
    fileprivate func unplannedWarnings(_ floor: Floor, _ nodes: [Node], _ locations: SiteLocations,
                                       roomsSeen: inout Set<String>) -> [SiteProblem] {
        var out: [SiteProblem] = []
        let at = locations.floors[floor.id] ?? SourceLocation(line: 0, key: "")
        if nodes.isEmpty { out.append(SiteProblem(.warning, line: at.line, key: at.key, message: "floor '\(floor.id)' has no node")) }
        let placed = Set(nodes.compactMap(\.room))
        for room in floor.rooms where roomsSeen.insert(room.id).inserted && !placed.contains(room.id) {
            let at = locations.rooms[room.id] ?? SourceLocation(line: 0, key: "")
            out.append(SiteProblem(.warning, line: at.line, key: at.key,
                                   message: "room '\(room.id)' has no node in it: without a floor plan it is told only from taught fingerprints "
                                       + "(whereabouts calibrate --rooms)"))
        }
        return out
    }
}
