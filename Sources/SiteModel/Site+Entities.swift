import Wire

/// Decoding of the site's list entries: rooms, walls, doors, zones, nodes, devices, IRKs.
extension SiteDecoder {
    /// Attenuation of a wall that does not say: a typical interior wall at 2.4 GHz.
    static let defaultWallAttenuation = 4.0

    mutating func decodeRoom(_ node: ConfigNode, _ key: String) -> Room? {
        guard let f = reader.fields(node, key, known: ["id", "name", "points"], ignored: ["color"]) else { return nil }
        let (id, name) = identity(f, key)
        // A floor without a plan has rooms without outlines (`Floor.hasPlan`).
        let points = floorHasPlan ? reader.required(f, "points").flatMap { polygon($0, f.path("points")) } : []
        if let id { roomsDeclaredHere.insert(id) } else { unnamedRoom = true }
        guard let id, let name, let points else { return nil }
        idLines.append(("room", id, node.line, f["id"] != nil ? f.path("id") : f.path("name")))
        // The first of a duplicated id keeps its place: the duplicate is an error of its own.
        if locations.rooms[id] == nil { locations.rooms[id] = SourceLocation(line: node.line, key: key) }
        return Room(id: id, name: name, points: points)
    }

    mutating func decodeWall(_ node: ConfigNode, _ key: String) -> Wall? {
        guard let f = reader.fields(node, key, known: ["points", "attenuation"]) else { return nil }
        let points = reader.required(f, "points").flatMap { reader.points($0, f.path("points"), minimum: 2) }
        let attenuation = reader.number(f["attenuation"], f.path("attenuation"), within: 0...60)
        guard let points, f["attenuation"] == nil || attenuation != nil else { return nil }
        return Wall(points: points, attenuation: attenuation ?? Self.defaultWallAttenuation)
    }

    mutating func decodeDoor(_ node: ConfigNode, _ key: String) -> Door? {
        guard let f = reader.fields(node, key, known: ["between", "at"]) else { return nil }
        var between: (String, String)?
        if let value = reader.required(f, "between") {
            let rooms = reader.strings(value, f.path("between"))
            if let rooms, rooms.count == 2, rooms[0] != rooms[1] {
                between = (rooms[0], rooms[1])
            } else if rooms != nil {
                reader.error(f.path("between"), value.line, "expects two different room ids, as [kitchen, hall]")
            }
        }
        // Without a plan a door only joins two rooms: where it is means nothing.
        let at = floorHasPlan ? reader.required(f, "at").flatMap { reader.point2($0, f.path("at")) } : Point2(0, 0)
        guard let between, let at else { return nil }
        return Door(between: between, at: at)
    }

    mutating func decodeZone(_ node: ConfigNode, _ key: String) {
        guard let f = reader.fields(node, key, known: ["id", "name", "floor", "points"]) else { return }
        let (id, name) = identity(f, key)
        var floor = reader.string(f["floor"], f.path("floor"))
        if floor == nil, f["floor"] == nil {
            // With a single floor there is nothing to choose.
            if site.floors.count == 1 { floor = site.floors[0].id } else { reader.error(f.path("floor"), node.line, "missing") }
        }
        let points = reader.required(f, "points").flatMap { polygon($0, f.path("points")) }
        guard let id, let name, let floor, let points else { return }
        idLines.append(("zone", id, node.line, f["id"] != nil ? f.path("id") : f.path("name")))
        if locations.zones[id] == nil { locations.zones[id] = SourceLocation(line: node.line, key: key) }
        zoneLines.append((f["floor"]?.line ?? node.line, f.path("floor")))
        site.zones.append(Zone(id: id, name: name, floor: floor, points: points))
    }

    mutating func decodeNode(_ node: ConfigNode, _ key: String) {
        // ESPresense-companion's `id` is the node's MQTT id, not its advertisements' device id,
        // so the id of those is a key of its own: `beacon`.
        guard let f = reader.fields(node, key, known: ["name", "point", "room", "floors", "rx_adj", "beacon"],
                                    ignored: ["id", "stationary", "enabled"]) else { return }
        let name = reader.required(f, "name").flatMap { reader.string($0, f.path("name")) }
        let (point, room) = nodePlace(f, node, key, name: name)
        let floors = reader.strings(f["floors"], f.path("floors"))
        let rxAdj = reader.number(f["rx_adj"], f.path("rx_adj"), within: -50...50)
        var beacon = reader.string(f["beacon"], f.path("beacon"))
        if let id = beacon, let problem = DeviceIDSyntax.advice(id) {
            reader.error(f.path("beacon"), f["beacon"]?.line ?? node.line, problem)
            beacon = nil
        }
        // A name and floors are judged (duplicate, unknown floor) even when another field of
        // the entry is bad: each is a problem of its own, reported in the same run.
        if let name { idLines.append(("node", name, node.line, f.path("name"))) }
        if let floors { nodeFloors.append((floors, f["floors"]?.line ?? node.line, key)) }
        guard let name, let point, f["floors"] == nil || floors != nil, f["rx_adj"] == nil || rxAdj != nil,
              f["beacon"] == nil || beacon != nil else { return }
        if let beacon {
            let line = f["beacon"]?.line ?? node.line
            idLines.append(("node beacon", beacon, line, f.path("beacon")))
            beaconLines[beacon] = (line, f.path("beacon"))
        }
        if locations.nodes[name] == nil { locations.nodes[name] = SourceLocation(line: node.line, key: key) }
        nodeLines.append((f["floors"]?.line ?? node.line, key))
        site.nodes.append(Node(name: name, point: point, floors: floors ?? [], rxAdj: rxAdj ?? 0, beacon: beacon, room: room))
    }

    mutating func decodeDevice(_ node: ConfigNode, _ key: String) {
        guard let f = reader.fields(node, key, known: ["id", "name", "tx_ref", "point", "floor"]) else { return }
        let id = reader.string(f["id"], f.path("id"))
        let name = reader.string(f["name"], f.path("name"))
        let txRef = reader.number(f["tx_ref"], f.path("tx_ref"), within: -120...20)
        let point = f["point"].flatMap { reader.point3($0, f.path("point")) }
        let floor = reader.string(f["floor"], f.path("floor"))
        if let floor, !site.floors.contains(where: { $0.id == floor }) {
            reader.error(f.path("floor"), f["floor"]?.line ?? node.line, "no floor '\(floor)' in this site")
        }
        guard let id else {
            if f["id"] == nil {
                reader.warning(key, node.line, "no id: entry ignored (Whereabouts names devices by id, not by name pattern)")
            }
            return
        }
        // A reading's id is compared byte for byte: an id of docs/protocol.md#device-ids spelled otherwise never matches. A
        // warning, not an error: an ESPresense-companion file loads as it is. Any other id
        // (aliases, `tile:…`, patterns) may come from a dialect, which keeps ids as they are.
        if let advice = DeviceIDSyntax.neverMatches(id) {
            reader.warning(f.path("id"), f["id"]?.line ?? node.line, advice)
        }
        idLines.append(("device", id, node.line, f.path("id")))
        guard f["tx_ref"] == nil || txRef != nil, f["point"] == nil || point != nil else { return }
        if deviceLines[id] == nil { deviceLines[id] = (node.line, f.path("id")) }
        site.devices.append(DeviceConfig(id: id, name: name, txRef: txRef, point: point, floor: floor))
    }

    mutating func decodeIRK(_ node: ConfigNode, _ key: String) {
        guard let f = reader.fields(node, key, known: ["id", "key"]) else { return }
        let id = reader.required(f, "id").flatMap { reader.string($0, f.path("id")) }
        var bytes: [UInt8]?
        if let value = reader.required(f, "key"), let text = reader.string(value, f.path("key")) {
            bytes = Self.hexBytes(text)
            if bytes == nil || bytes?.count != 16 {
                reader.error(f.path("key"), value.line, "expects 32 hex digits (16 bytes), got \(ReaderShown.text(text))")
                bytes = nil
            }
        }
        guard let id, let bytes else { return }
        idLines.append(("irk", id, node.line, f.path("id")))
        site.irks.append(IRKConfig(id: id, key: bytes))
    }

    /// `id` and `name` of a room or zone: either may be left out, not both.
    private mutating func identity(_ f: Fields, _ key: String) -> (id: String?, name: String?) {
        let id = reader.string(f["id"], f.path("id"))
        let name = reader.string(f["name"], f.path("name"))
        if f["id"] == nil && f["name"] == nil {
            reader.error(key, f.node.line, "needs an id or a name")
            return (nil, nil)
        }
        if let id, id.isEmpty { reader.error(f.path("id"), f.node.line, "must not be empty"); return (nil, nil) }
        guard let resolved = id ?? name.map(Site.slug), !resolved.isEmpty else {
            reader.error(f.path("name"), f.node.line, "makes no id (it has no letters or digits); give an id")
            return (nil, nil)
        }
        return (resolved, name ?? resolved)
    }

    static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var i = 0
        while i + 1 < digits.count {
            guard let hi = hexValue(digits[i]), let lo = hexValue(digits[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

enum ReaderShown {
    static func text(_ text: String) -> String {
        "\(text.count) characters '\(text.count > 40 ? String(text.prefix(40)) + "…" : text)'"
    }
}
