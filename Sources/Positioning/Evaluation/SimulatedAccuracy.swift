import Wire
import SiteModel

/// One simulated scenario run through every locator on the same readings.
public struct ScenarioAccuracy: Sendable {
    public var name: String
    public var site: Site
    public var readings: Int
    /// Devices in the truth, in a stable order.
    public var devices: [String]
    /// Per locator, in `LocatorKind.allCases` order: everything it said, and its score over
    /// every device.
    public var outputs: [ReplayOutput]
    public var scores: [SiteScore]
    /// Per device (in `devices` order), per locator.
    public var deviceScores: [[SiteScore]]

    /// Replays `readings` (in the order a subscriber would get them) through each locator.
    public init(name: String, site: Site, readings: [(node: String, reading: Reading)], truth: GroundTruth,
                options: EngineOptions = EngineOptions()) {
        self.name = name
        self.site = site
        self.readings = readings.count
        devices = truth.devices.keys.sorted()
        let outputs = LocatorKind.allCases.map { replay(readings, site: site, locator: $0, step: options.updateInterval, options: options) }
        self.outputs = outputs
        scores = outputs.map { SiteScore($0, truth: truth, site: site) }
        deviceScores = devices.map { id in outputs.map { SiteScore($0, truth: truth, site: site, only: [id]) } }
    }

    /// The score of `kind` over every device.
    public func score(_ kind: LocatorKind) -> SiteScore {
        scores[LocatorKind.allCases.firstIndex(of: kind) ?? 0]
    }

    /// SVGs of true versus estimated tracks: per device that moves, per floor it visits.
    public func pictures(truth: GroundTruth, devices limit: Int = 3) -> [(name: String, svg: String)] {
        var out: [(String, String)] = []
        let colours: [LocatorKind: String] = [.default: "#1f6fd1", .nelderMead: "#e08a00", .nearest: "#999999"]
        for id in devices.filter({ moved(truth.devices[$0] ?? []) > 5 }).prefix(limit) {
            let samples = truth.devices[id] ?? []
            for floor in site.floors where samples.contains(where: { $0.floor == floor.id }) {
                let real = samples.filter { $0.floor == floor.id }.compactMap { s in s.position.map { (t: s.t, p: $0.xy) } }
                var lines = [TrackPicture.Line(label: "truth", colour: "#000000", points: real)]
                for (k, kind) in LocatorKind.allCases.enumerated() where kind != .nearest {
                    let points = outputs[k].updates.filter { $0.id == id && $0.floor == floor.id }.map { (t: $0.t, p: Point2($0.x, $0.y)) }
                    lines.append(TrackPicture.Line(label: kind.rawValue, colour: colours[kind] ?? "#333", points: points))
                }
                let picture = TrackPicture(title: "\(name): \(id) on \(floor.id)", floor: floor,
                                           nodes: site.nodes.filter { $0.floors.isEmpty || $0.floors.contains(floor.id) }, lines: lines)
                out.append(("\(name)-\(Self.fileName(siteName(of: id).map { "irk:" + $0 } ?? id))-\(floor.id)", picture.svg))
            }
        }
        return out
    }

    private func moved(_ samples: [TruthSample]) -> Double {
        var total = 0.0
        for (a, b) in zip(samples, samples.dropFirst()) {
            if let p = a.position, let q = b.position { total += distance(p, q) }
        }
        return total
    }

    /// The site's name (`irks[].id`) of the key a phone's id `irk:<key hex>` spells, if the
    /// site has that key: a readable label beside the hex in tables and file names.
    public func siteName(of id: String) -> String? {
        guard id.hasPrefix("irk:") else { return nil }
        let digits = Array("0123456789abcdef".utf8)
        return site.irks.first { irk in
            "irk:" + String(decoding: irk.key.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }, as: UTF8.self) == id
        }?.id
    }

    /// A device id as a short file name: `ibeacon-MAJOR-MINOR`, a phone's key name, a MAC.
    static func fileName(_ id: String) -> String {
        let parts = id.split(separator: ":", maxSplits: 1)
        let kind = parts.first.map { $0.lowercased() } ?? "", tail = parts.count > 1 ? String(parts[1]) : id
        let short = kind == "ibeacon" ? "ibeacon-" + tail.split(separator: "-").suffix(2).joined(separator: "-") : tail
        return String(short.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "-" })
    }
}
