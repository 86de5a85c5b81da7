extension RadioMap {
    /// Decodes a calibration file's `radio_map` (docs/operations.md, Measure your own site):
    /// `bandwidth`, `prior`, `limit` and `nodes[]` of `name`, `floor` and `points` (each
    /// `[x, y, dB, weight]`); the fit's figures beside them (`rms_model`, `rms_map`,
    /// `rms_held_out`, `thin`) are read past. `nil` when absent or unusable, the problems recorded.
    public static func decode(_ node: ConfigNode?, _ key: String, _ reader: inout ConfigReader) -> RadioMap? {
        guard let node, !node.isNull else { return nil }
        let known: Set<String> = ["bandwidth", "prior", "limit", "nodes"]
        guard let f = reader.fields(node, key, known: known) else { return nil }
        let before = reader.problems.count
        let bandwidth = reader.number(reader.required(f, "bandwidth"), f.path("bandwidth"), within: 0.1...50)
        let prior = reader.number(reader.required(f, "prior"), f.path("prior"), within: 0.001...1000)
        let limit = reader.number(reader.required(f, "limit"), f.path("limit"), within: 0...40)
        var layers: [Layer] = []
        for (i, item) in (reader.list(f["nodes"], f.path("nodes")) ?? []).enumerated() {
            if let layer = Layer.decode(item, f.path("nodes[\(i)]"), &reader) { layers.append(layer) }
        }
        guard let bandwidth, let prior, let limit, !reader.problems[before...].contains(where: { $0.severity == .error }) else { return nil }
        return RadioMap(bandwidth: bandwidth, prior: prior, limit: limit, layers: layers)
    }
}

extension RadioMap.Layer {
    static func decode(_ item: ConfigNode, _ key: String, _ reader: inout ConfigReader) -> RadioMap.Layer? {
        let known: Set<String> = ["name", "floor", "points", "rms_model", "rms_map", "rms_held_out", "thin"]
        guard let n = reader.fields(item, key, known: known),
              let name = reader.string(reader.required(n, "name"), n.path("name")),
              let floor = reader.string(reader.required(n, "floor"), n.path("floor")),
              let items = reader.list(reader.required(n, "points"), n.path("points")) else { return nil }
        var points: [RadioMap.Point] = []
        for (i, p) in items.enumerated() {
            let path = n.path("points[\(i)]")
            guard let values = p.items, values.count == 4 else {
                reader.error(path, p.line, "expects [x, y, dB, weight], got \(p.items.map { "\($0.count) values" } ?? p.kindName)")
                continue
            }
            let x = reader.number(values[0], path + "[0]"), y = reader.number(values[1], path + "[1]")
            let dB = reader.number(values[2], path + "[2]", within: -100...100)
            let w = reader.number(values[3], path + "[3]", within: 0...1000)
            if let x, let y, let dB, let w { points.append(RadioMap.Point(x: x, y: y, residual: dB, weight: w)) }
        }
        return RadioMap.Layer(node: name, floor: floor, points: points)
    }
}
