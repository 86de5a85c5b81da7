import Wire
import SiteModel

/// The nearest-node baseline: the device is where its strongest node is.
///
/// This is what room-presence systems built on "which node hears it loudest" report; it is
/// here to measure the default against, on the same readings.
struct NearestNodeLocator: Locator {
    func locate(_ obs: inout [Observation], floor: Int, site: SiteGeometry, model: PathLoss, hint: Point3?) -> Fix? {
        guard var best = obs.first else { return nil }
        for o in obs.dropFirst() where o.rssi - o.txRef > best.rssi - best.txRef { best = o }
        let d = model.distance(rssi: best.rssi, txRef: best.txRef)
        let variance = max(d * d, 1)
        return Fix(position: site.clamp(best.position, floor: floor), floor: floor,
                   xx: variance, xy: 0, yy: variance, zz: 1,
                   confidence: 1 / (1 + d), fixes: obs.count, cost: 0)
    }
}
