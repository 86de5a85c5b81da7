/// The parameters a calibration file (what `whereabouts calibrate --survey` writes, CAL.yaml)
/// sets on a site: the path-loss exponent, each node's `rx_adj`, each device's `tx_ref`, the
/// radio map (`radio_map`) and the rooms' fingerprints (`fingerprints`).
///
/// The file holds more (fit quality per node, where the survey is thin: see docs/operations.md,
/// Measure your own site); only these keys change what the engine does, and the rest is read
/// past. A node or device the site does not list is reported, and left out.
public struct SiteCalibration: Sendable, Equatable {
    /// The file format this decoder reads.
    public static let version = 1
    /// The path-loss exponent (the site's `positioning.absorption`).
    public var absorption: Double?
    /// Node name → fitted `rx_adj` (dB).
    public var rxAdj: [String: Double] = [:]
    /// Device id → fitted `tx_ref` (dBm at 1 m).
    public var txRef: [String: Double] = [:]
    /// Per-room fingerprints (`fingerprints:`, SiteCalibration+Rooms.swift).
    public var fingerprints: RoomFingerprintSet?

    /// The radio map (`radio_map`): per node, corrections over the floor learnt from the survey.
    public var radioMap: RadioMap?

    public init(absorption: Double? = nil, rxAdj: [String: Double] = [:], txRef: [String: Double] = [:], radioMap: RadioMap? = nil) {
        self.absorption = absorption; self.rxAdj = rxAdj; self.txRef = txRef; self.radioMap = radioMap
    }

    /// The top-level keys this decoder reads or reads past. Another section of the file (room
    /// fingerprints, say) adds its key here and decodes it in its own file.
    public static let knownKeys: Set<String> = ["version", "fitted", "absorption", "nodes", "devices", "floors", "survey", "thin", "radio_map", "fingerprints"]

    /// Decodes a calibration file's tree; every problem comes back with its line and key.
    public static func decode(_ root: ConfigNode) -> (calibration: SiteCalibration, problems: [SiteProblem]) {
        var reader = ConfigReader()
        var out = SiteCalibration()
        guard let f = reader.fields(root, "", known: knownKeys) else { return (out, reader.problems) }
        if let v = reader.integer(f["version"], "version", within: 0...Int.max) {
            if v != version { reader.error("version", f["version"]?.line ?? root.line, "this whereabouts reads version \(version), got \(v)") }
        } else if f["version"] == nil {
            reader.error("version", root.line, "a calibration file needs `version: \(version)`")
        }
        out.absorption = reader.number(f["absorption"], "absorption", within: 1...6)
        for (i, item) in (reader.list(f["nodes"], "nodes") ?? []).enumerated() {
            let key = "nodes[\(i)]"
            guard let n = reader.fields(item, key, known: ["name", "rx_adj", "fitted", "readings", "points", "rms", "distance", "exponent_own", "rms_own", "note"]),
                  let name = reader.string(reader.required(n, "name"), n.path("name")) else { continue }
            if let adj = reader.number(n["rx_adj"], n.path("rx_adj"), within: -50...50) { out.rxAdj[name] = adj }
        }
        for (i, item) in (reader.list(f["devices"], "devices") ?? []).enumerated() {
            let key = "devices[\(i)]"
            guard let d = reader.fields(item, key, known: ["id", "tx_ref", "readings", "points", "rms"]),
                  let id = reader.string(reader.required(d, "id"), d.path("id")) else { continue }
            if let tx = reader.number(d["tx_ref"], d.path("tx_ref"), within: -120...20) { out.txRef[id] = tx }
        }
        out.radioMap = RadioMap.decode(f["radio_map"], "radio_map", &reader)
        out.fingerprints = decodeFingerprints(f["fingerprints"], &reader)
        return (out, reader.problems)
    }

    /// Names in this calibration that `site` does not know (nodes), one message each.
    public func unknownNodes(in site: Site) -> [String] {
        let names = Set(site.nodes.map(\.name))
        let mapped = radioMap?.layers.map(\.node) ?? []
        return Set(rxAdj.keys).union(mapped).filter { !names.contains($0) }.sorted()
    }

    /// `site` with this calibration's exponent, node offsets, device powers and radio map; what it does
    /// not name stays as the site has it. A device not in `site.devices` is added with its
    /// `tx_ref`, so the engine uses it in place of the power its frames announce.
    public func applied(to site: Site) -> Site {
        var site = site
        if let absorption { site.positioning.absorption = absorption }
        if let radioMap { site.radioMap = radioMap }
        if let fingerprints { site.fingerprints = fingerprints }
        for i in site.nodes.indices {
            if let adj = rxAdj[site.nodes[i].name] { site.nodes[i].rxAdj = adj }
        }
        for (id, tx) in txRef.sorted(by: { $0.key < $1.key }) {
            if let i = site.devices.firstIndex(where: { $0.id == id }) {
                site.devices[i].txRef = tx
            } else {
                site.devices.append(DeviceConfig(id: id, txRef: tx))
            }
        }
        return site
    }
}
