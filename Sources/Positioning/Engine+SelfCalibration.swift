import Wire
import SiteModel

/// Where self-calibration learns: at each solve (from the fix, or from an anchored device's
/// known point) and at each reading of a node's beacon.
extension Engine {
    /// The learned state (`SelfCalibration`): offsets, exponents, how many readings taught.
    public var calibration: SelfCalibration { selfCalibration }

    /// Teaches self-calibration from device `d`'s solve: each node's residual at the device's
    /// position (its known point when anchored, else the fix), less the device's mean residual
    /// (its own power, `TxLearning`'s), moves that node's offset; the residuals against
    /// log-distance move the floor's exponent. `observations` are the solve's, offsets applied.
    func teachSelfCalibration(device d: Int, fix: Fix) {
        let anchored = devices[d].fixedFloor >= 0
        let floor = anchored ? devices[d].fixedFloor : fix.floor
        let position = anchored ? devices[d].fixedPoint : fix.position
        let options = selfCalibration.options
        guard anchored || (fix.fixes >= options.minimumNodes && (options.fixOffsetWeight > 0 || selfCalibration.fixesTeachExponent)) else { return }
        if !anchored {
            let dx = fix.position.x - devices[d].taughtAt.x, dy = fix.position.y - devices[d].taughtAt.y
            guard !(dx * dx + dy * dy < options.teachingStep * options.teachingStep) else { return }
        }
        let model = selfCalibration.model(floor: floor, base: self.model)
        let scale = anchored ? options.anchorWeight : options.fixOffsetWeight
        residuals.removeAll(keepingCapacity: true)
        var sw = 0.0, se = 0.0, sb = 0.0
        for o in observations where geometry.nodes[Int(o.node)].floors.contains(floor) {
            let walls = geometry.wallLoss(floor: floor, from: position.xy, to: o.position.xy)
            let range = max(distance(position, o.position), PathLoss.minimumDistance)
            let e = max(min(o.rssi - model.rssi(distance: range, txRef: o.txRef, walls: walls), options.residualLimit), -options.residualLimit)
            let b = -10 * Elementary.log(range) / 2.302585092994046
            let w = Double(min(o.samples, Observation.fullWeightSamples))
            residuals.append(CalibrationResidual(node: o.node, e: e, basis: b, weight: w))
            sw += w; se += w * e; sb += w * b
        }
        guard residuals.count >= (anchored ? 2 : options.minimumNodes), sw > 0 else { return }
        devices[d].taughtAt = fix.position.xy
        let mean = se / sw, basis = sb / sw
        var sxy = 0.0, sxx = 0.0
        for r in residuals {
            if scale > 0 { selfCalibration.teach(node: Int(r.node), residual: r.e - mean, weight: r.weight * scale) }
            sxy += r.weight * (r.e - mean) * (r.basis - basis)
            sxx += r.weight * (r.basis - basis) * (r.basis - basis)
        }
        if anchored || selfCalibration.fixesTeachExponent { selfCalibration.teachExponent(floor: floor, sxy: sxy, sxx: sxx) }
    }

    /// Teaches self-calibration from node `from`'s beacon heard by node `to` at `rssi` dBm
    /// (frame power `tx`): both are where the site says, on a floor they share.
    func teachSelfCalibration(beaconOf from: Int, heardBy to: Int, rssi: Int, tx: Int?) {
        guard from != to, let floor = geometry.nodes[from].floors.first(where: { geometry.nodes[to].floors.contains($0) }) else { return }
        let a = geometry.nodes[from].point, b = geometry.nodes[to].point
        let walls = geometry.wallLoss(floor: floor, from: a.xy, to: b.xy)
        let model = selfCalibration.model(floor: floor, base: self.model)
        let expected = model.rssi(distance: distance(a, b), txRef: tx.map(Double.init) ?? site.positioning.txRefDefault, walls: walls)
        let heard = Double(rssi) + geometry.nodes[to].rxAdj + selfCalibration.offset(node: to)
        selfCalibration.teachBeacon(from: from, to: to, residual: heard - expected)
    }

    /// Where an anchored device (a site `devices` entry with a `point`) is, and on which floor
    /// (its `floor`, else the floor whose heights hold the point, else the first); nil if none.
    func fixedPlace(of config: DeviceConfig?) -> (point: Point3, floor: Int)? {
        guard let point = config?.point, !geometry.floors.isEmpty else { return nil }
        if let id = config?.floor, let f = geometry.floors.firstIndex(where: { $0.id == id }) { return (point, f) }
        let f = geometry.floors.firstIndex { point.z >= $0.min.z && point.z <= $0.max.z } ?? 0
        return (point, f)
    }
}

/// One node's residual in a solve that teaches self-calibration (`Engine.residuals`, reused).
struct CalibrationResidual {
    var node: Int32
    /// The reading less the model's, dB.
    var e: Double
    /// `-10·log10 d`.
    var basis: Double
    var weight: Double
}
