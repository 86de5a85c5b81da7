extension Site {
    /// Decodes a site file's tree, collecting every problem rather than stopping at the first.
    ///
    /// Keys are a superset of ESPresense-companion's `config.yaml`: its keys that Whereabouts
    /// does not use (`map`, `locators`, …) are accepted silently; other unknown keys warn.
    public static func decode(_ root: ConfigNode) -> SiteDecoding {
        var decoder = SiteDecoder()
        decoder.decodeRoot(root)
        decoder.crossCheck()
        // File order reads best; the index keeps problems of one line in the order found.
        let problems = decoder.reader.problems.enumerated()
            .sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(\.element)
        return SiteDecoding(site: decoder.site, problems: problems, locations: decoder.locations)
    }

    /// A room or zone id made from its name: lower case letters and digits, `_` between words.
    public static func slug(_ name: String) -> String {
        var out = ""
        var pendingSeparator = false
        for c in name.lowercased() {
            if c.isLetter || c.isNumber {
                if pendingSeparator && !out.isEmpty { out.append("_") }
                out.append(c)
                pendingSeparator = false
            } else {
                pendingSeparator = true
            }
        }
        return out
    }
}

/// The keys of a site file, in one place so the decoder and its help agree.
enum SiteKeys {
    static let top: Set<String> = ["mqtt", "floors", "zones", "nodes", "devices", "exclude_devices", "irks",
                                   "positioning", "storage", "away_timeout", "calibration", "gps", "partitions"]
    /// ESPresense-companion's top-level keys that Whereabouts has no use for.
    static let companionTop: Set<String> = ["map", "timeout", "device_retention", "optimization", "history",
                                            "locators", "filtering", "weighting", "bayesian_probabilities", "update"]
}

/// The decoding state: the site built so far, where things were, and the problems found.
struct SiteDecoder {
    typealias Fields = ConfigReader.Fields
    var reader = ConfigReader()
    var site = Site()
    var locations = SiteLocations()
    /// Door and zone references, checked once every floor and room is known.
    var doorLines: [[(line: Int, key: String)]] = []
    var zoneLines: [(line: Int, key: String)] = []
    var nodeLines: [(line: Int, key: String)] = []
    /// Each node entry's floors, also of entries dropped for another bad field.
    var nodeFloors: [(floors: [String], line: Int, key: String)] = []
    var idLines: [(kind: String, id: String, line: Int, key: String)] = []
    /// Where each node beacon and device id was written, to report one listed as both.
    var beaconLines: [String: (line: Int, key: String)] = [:]
    var deviceLines: [String: (line: Int, key: String)] = [:]
    var floorsWithoutBounds: Set<String> = []
    /// Room ids written on each floor, also of rooms dropped for a bad outline, so a door
    /// to such a room does not report a second, misleading error.
    var declaredRooms: [String: Set<String>] = [:]
    var roomsDeclaredHere: Set<String> = []
    /// Whether some floor or room has no readable id, so references to it cannot be judged.
    var unnamedFloor = false
    var unnamedRoom = false
    /// Whether the floor being decoded has a plan (`Floor.hasPlan`).
    var floorHasPlan = true
    /// Nodes placed by `room:`, checked once every room is known.
    var roomNodeLines: [(node: String, room: String, line: Int, key: String, floorsGiven: Bool)] = []

    mutating func decodeRoot(_ root: ConfigNode) {
        guard let f = reader.fields(root, "", known: SiteKeys.top, ignored: SiteKeys.companionTop) else { return }
        if let node = f["mqtt"] { decodeMQTT(node, f.path("mqtt")) }
        if let node = f["positioning"] { decodePositioning(node, f.path("positioning")) }
        // ESPresense-companion's name for the same setting; `positioning.away_after` wins.
        if root["positioning"]?["away_after"] == nil, let t = reader.duration(f["away_timeout"], "away_timeout") {
            site.positioning.awayAfter = t
        }
        if let node = f["storage"] { decodeStorage(node, f.path("storage")) }
        if let path = reader.string(f["calibration"], "calibration") {
            if path.isEmpty { reader.error("calibration", f["calibration"]?.line ?? root.line, "expects a file name") }
            else { site.calibration = path }
        }
        if let node = f["gps"] { decodeGPS(node, f.path("gps")) }
        if let p = reader.integer(f["partitions"], "partitions", within: 1...1024) { site.partitions = p }
        if let floors = reader.list(f["floors"], "floors") {
            for (i, node) in floors.enumerated() { decodeFloor(node, "floors[\(i)]") }
        }
        if f["floors"]?.items?.isEmpty ?? (f["floors"] == nil) {
            reader.error("floors", root.line, "a site needs at least one floor")
        }
        forEachItem(f, "zones") { d, node, key in d.decodeZone(node, key) }
        forEachItem(f, "nodes") { d, node, key in d.decodeNode(node, key) }
        forEachItem(f, "devices") { d, node, key in d.decodeDevice(node, key) }
        forEachItem(f, "irks") { d, node, key in d.decodeIRK(node, key) }
        forEachItem(f, "exclude_devices") { d, node, key in
            // ESPresense-companion writes `- id: "glob"`; a bare string is accepted too.
            let glob = node.entries != nil ? d.reader.fields(node, key, known: ["id"]).flatMap { d.reader.string($0["id"], $0.path("id")) }
                                           : d.reader.string(node, key)
            if let glob { d.site.excludeDevices.append(glob) }
        }
    }

    private mutating func forEachItem(_ f: Fields, _ name: String, _ body: (inout SiteDecoder, ConfigNode, String) -> Void) {
        guard let items = reader.list(f[name], f.path(name)) else { return }
        for (i, node) in items.enumerated() { body(&self, node, "\(f.path(name))[\(i)]") }
    }

    mutating func decodeMQTT(_ node: ConfigNode, _ key: String) {
        guard let f = reader.fields(node, key, known: ["host", "port", "username", "password_file", "tls", "prefix", "ssl", "password"],
                                    ignored: ["discovery_topic", "client_id"]) else { return }
        locations.settings[key] = SourceLocation(line: node.line, key: key)
        if let tls = f["tls"] { locations.settings[f.path("tls")] = SourceLocation(line: tls.line, key: f.path("tls")) }
        if let host = reader.string(f["host"], f.path("host")) { site.mqtt.host = host }
        if let port = reader.integer(f["port"], f.path("port"), within: 1...65_535) { site.mqtt.port = port }
        site.mqtt.username = reader.string(f["username"], f.path("username"))
        site.mqtt.passwordFile = reader.string(f["password_file"], f.path("password_file"))
        if let prefix = reader.string(f["prefix"], f.path("prefix")) {
            if prefix.isEmpty || prefix.contains("+") || prefix.contains("#") {
                reader.error(f.path("prefix"), f["prefix"]?.line ?? node.line, "a topic prefix must be non-empty, without + or #")
            } else {
                site.mqtt.prefix = prefix
            }
        }
        if reader.bool(f["ssl"], f.path("ssl")) == true { site.mqtt.tls = TLSSettings() }
        if let tls = f["tls"], let t = reader.fields(tls, f.path("tls"), known: ["ca", "cert", "key"]) {
            site.mqtt.tls = TLSSettings(ca: reader.string(t["ca"], t.path("ca")), cert: reader.string(t["cert"], t.path("cert")),
                                        key: reader.string(t["key"], t.path("key")))
        }
        if let password = f["password"], reader.string(password, f.path("password")).map({ !$0.isEmpty }) == true {
            reader.warning(f.path("password"), password.line, "not read: a password does not belong in the site file; name a file holding it with password_file")
        }
    }

    mutating func decodePositioning(_ node: ConfigNode, _ key: String) {
        guard let f = reader.fields(node, key, known: ["absorption", "window", "away_after", "tx_ref", "state_deadband", "state_heartbeat",
                                                                 "backfill_horizon", "self_calibration"])
        else { return }
        if let v = reader.number(f["absorption"], f.path("absorption"), within: 1...6) {
            site.positioning.absorption = v
        }
        if let v = reader.duration(f["window"], f.path("window")) { site.positioning.window = v }
        if let v = reader.duration(f["away_after"], f.path("away_after")) { site.positioning.awayAfter = v }
        if let v = reader.number(f["tx_ref"], f.path("tx_ref"), within: -120...20) { site.positioning.txRefDefault = v }
        // Publishing only (the aggregator's state topic); 0 publishes every update.
        if let v = reader.number(f["state_deadband"], f.path("state_deadband"), within: 0...100) { site.positioning.stateDeadband = v }
        if let v = reader.duration(f["state_heartbeat"], f.path("state_heartbeat"), allowingZero: true) { site.positioning.stateHeartbeat = v }
        if let v = reader.duration(f["backfill_horizon"], f.path("backfill_horizon"), allowingZero: true) { site.positioning.backfillHorizon = v }
        if let value = f["self_calibration"], let text = reader.string(value, f.path("self_calibration")) {
            if let mode = SelfCalibrationMode(rawValue: text) { site.positioning.selfCalibration = mode }
            else { reader.error(f.path("self_calibration"), value.line, "expects off, learn or frozen, not '\(text)'") }
        }
    }

    mutating func decodeStorage(_ node: ConfigNode, _ key: String) {
        guard let f = reader.fields(node, key, known: ["path", "retention"]) else { return }
        if let v = reader.string(f["path"], f.path("path")) { site.storage.path = v }
        if let v = reader.duration(f["retention"], f.path("retention")) { site.storage.retention = v }
    }

    /// ESPresense-companion's `gps` section: where the plan's origin lies on Earth. Reported
    /// (positions as latitude and longitude) only with `report: true`, so a companion file that
    /// names its location says nothing new on its own.
    mutating func decodeGPS(_ node: ConfigNode, _ key: String) {
        guard let f = reader.fields(node, key, known: ["latitude", "longitude", "rotation", "report", "elevation"]) else { return }
        let latitude = reader.required(f, "latitude").flatMap { reader.number($0, f.path("latitude"), within: -90...90) }
        let longitude = reader.required(f, "longitude").flatMap { reader.number($0, f.path("longitude"), within: -180...180) }
        let rotation = reader.number(f["rotation"], f.path("rotation"), within: -360...360) ?? 0
        guard let latitude, let longitude, reader.bool(f["report"], f.path("report")) == true else { return }
        site.gps = GPSAnchor(latitude: latitude, longitude: longitude, rotation: rotation)
    }

    mutating func decodeFloor(_ node: ConfigNode, _ key: String) {
        guard let f = reader.fields(node, key, known: ["id", "name", "bounds", "rooms", "walls", "doors"]) else { return }
        let id = reader.required(f, "id").flatMap { reader.string($0, f.path("id")) }
        let name = reader.string(f["name"], f.path("name"))
        // No bounds and no room outline: a floor without a plan (Site+RoomsWithoutPlan.swift).
        floorHasPlan = f["bounds"] != nil || Self.anyRoomHasPoints(f["rooms"])
        let bounds = floorHasPlan ? reader.required(f, "bounds").flatMap { decodeBounds($0, f.path("bounds")) } : nil
        var floor = Floor(id: id ?? "", name: name ?? id ?? "", bounds: bounds ?? (Point3(0, 0, 0), Point3(0, 0, 0)))
        floor.hasPlan = floorHasPlan
        if !floorHasPlan, let walls = f["walls"], !(walls.items?.isEmpty ?? false) {
            reader.error(f.path("walls"), walls.line, "walls need a floor plan: give the floor bounds and its rooms points")
        }
        roomsDeclaredHere = []
        forEachItem(f, "rooms") { d, node, key in d.decodeRoom(node, key).map { floor.rooms.append($0) } }
        forEachItem(f, "walls") { d, node, key in d.decodeWall(node, key).map { floor.walls.append($0) } }
        var doorLines: [(line: Int, key: String)] = []
        forEachItem(f, "doors") { d, node, key in
            if let door = d.decodeDoor(node, key) { floor.doors.append(door); doorLines.append((node.line, key)) }
        }
        guard let id else { unnamedFloor = true; return }
        // A floor with bad bounds is kept (its error is reported) so that rooms, zones and
        // nodes naming it do not each report a second, misleading error.
        if bounds == nil && floorHasPlan { floorsWithoutBounds.insert(id) }
        declaredRooms[id, default: []].formUnion(roomsDeclaredHere)
        idLines.append(("floor", id, node.line, f.path("id")))
        if locations.floors[id] == nil { locations.floors[id] = SourceLocation(line: node.line, key: key) }
        site.floors.append(floor)
        self.doorLines.append(doorLines)
    }

    private mutating func decodeBounds(_ node: ConfigNode, _ key: String) -> (min: Point3, max: Point3)? {
        guard let items = node.items, items.count == 2 else {
            reader.error(key, node.line, "expects two corners [[x0, y0, z0], [x1, y1, z1]]")
            return nil
        }
        guard let a = reader.point3(items[0], key + "[0]"), let b = reader.point3(items[1], key + "[1]") else { return nil }
        guard a.x < b.x, a.y < b.y, a.z < b.z else {
            reader.error(key, node.line, "the first corner must be below the second in x, y and z")
            return nil
        }
        return (a, b)
    }
}
