import Wire
import SiteModel

/// What went wrong fitting a survey, with what could be fitted instead.
public enum SurveyFailure: Error, Equatable, CustomStringConvertible {
    /// No reading fell in a span of the truth.
    case noOverlap(readings: ClosedRange<Double>?, truth: ClosedRange<Double>)
    case deviceNeverHeard(String, heard: [String])
    case tooFewPoints(have: Int, need: Int, nodes: [String])
    case distancesAlike
    case absorptionOutOfRange(Double)

    public var description: String {
        switch self {
        case .noOverlap(let readings, let truth):
            let r = readings.map { "\($0.lowerBound)...\($0.upperBound)" } ?? "none"
            return "no reading falls in a span of the truth (readings at \(r), truth at \(truth.lowerBound)...\(truth.upperBound)): nothing can be fitted"
        case .deviceNeverHeard(let id, let heard):
            return "device \(id) was never heard while the truth has a position"
                + (heard.isEmpty ? "" : "; heard then: \(heard.joined(separator: ", ")) (pass one with --device, or none for all)")
        case .tooFewPoints(let have, let need, let nodes):
            return "too few survey points: \(have) (node, point) cells, \(need) needed for the absorption, each node's rx_adj and "
                + "each device's tx_ref" + (nodes.isEmpty ? "" : "; rx_adj could be fitted for \(nodes.joined(separator: ", ")) only")
        case .distancesAlike:
            return "the survey's distances are too alike to tell the absorption from the offsets: survey points both near and far from the nodes"
        case .absorptionOutOfRange(let n):
            return "the fitted absorption \(n) is outside 1...6: the survey does not fit the model (walls missing from the site?)"
        }
    }
}

/// One node hearing one device around one point: the readings the fit takes as one row.
struct SurveyCell {
    var node: Int, device: Int, floor: Int
    var rssi: [Double] = []
    var basis = 0.0, walls = 0.0, distance = 0.0
    var x = 0.0, y = 0.0
    /// Packets the device sent there, as far as the survey tells (see `SurveyCells.level`).
    var sent = 0
    /// The median RSSI the fit takes (`SurveyCells.level`).
    var level = 0.0
}

/// A site survey's readings at known points, grouped into cells ready to fit.
struct SurveyCells {
    /// Cells are this wide (m): readings within one are one row, their median RSSI.
    static let size = 0.5
    var cells: [SurveyCell] = []
    var devices: [String] = []
    var used = 0, outside = 0, unknownNode = 0, otherDevice = 0
    /// Readings of cells whose node heard half the packets sent there or fewer (see `level`).
    var faint = 0
    var span: ClosedRange<Double>?

    private struct Key: Hashable { var node: Int, device: Int, floor: Int, x: Int, y: Int, z: Int }

    init(readings: [(node: String, reading: Reading)], truth: TruthTrack, site: Site, device: String?) {
        let geometry = SiteGeometry(site)
        var nodeIndex: [String: Int] = [:]
        for (i, n) in site.nodes.enumerated() where nodeIndex[n.name] == nil { nodeIndex[n.name] = i }
        var deviceIndex: [String: Int] = [:], index: [Key: Int] = [:]
        for (name, r) in readings {
            span = span.map { min($0.lowerBound, r.t)...max($0.upperBound, r.t) } ?? r.t...r.t
            guard let j = nodeIndex[name] else { unknownNode += 1; continue }
            guard r.rssi < 0, device == nil || r.id == device else { otherDevice += 1; continue }
            guard let (p, f) = truth.position(at: r.t) else { outside += 1; continue }
            let k = deviceIndex[r.id] ?? { deviceIndex[r.id] = devices.count; devices.append(r.id); return devices.count - 1 }()
            let key = Key(node: j, device: k, floor: f, x: Int((p.x / Self.size).rounded()), y: Int((p.y / Self.size).rounded()),
                          z: Int((p.z / Self.size).rounded()))
            let c = index[key] ?? { index[key] = cells.count; cells.append(SurveyCell(node: j, device: k, floor: f)); return cells.count - 1 }()
            let node = geometry.nodes[j].point
            let d = max(distance(p, node), 0.1)
            cells[c].rssi.append(Double(r.rssi))
            cells[c].basis += -10 * Elementary.log10(d)
            cells[c].walls += geometry.wallLoss(floor: f, from: p.xy, to: node.xy)
            cells[c].distance += d
            cells[c].x += p.x; cells[c].y += p.y
            used += 1
        }
        for i in cells.indices {
            let n = Double(cells[i].rssi.count)
            cells[i].basis /= n; cells[i].walls /= n; cells[i].distance /= n; cells[i].x /= n; cells[i].y /= n
        }
        // The packets sent at a place: as many as the node hearing the most of them there heard.
        var sent: [Key: Int] = [:]
        func place(_ key: Key) -> Key { Key(node: 0, device: key.device, floor: key.floor, x: key.x, y: key.y, z: key.z) }
        for (key, c) in index { sent[place(key)] = max(sent[place(key)] ?? 0, cells[c].rssi.count) }
        for (key, c) in index { cells[c].sent = sent[place(key)] ?? cells[c].rssi.count }
        for i in cells.indices {
            cells[i].level = Self.level(cells[i])
            if 2 * cells[i].rssi.count <= cells[i].sent { faint += cells[i].rssi.count }
        }
    }

    /// The cell's median RSSI over every packet sent there, the ones the node missed counted as
    /// fainter than any it heard (near the sensitivity, only the luckiest packets are heard, so
    /// the median of those heard is too loud). When the node heard half of them or fewer the
    /// median was never heard: the faintest heard, an upper bound, stands for it. On a simulated
    /// survey (10 nodes, exponent 3.3) the plain median fitted 2.92, this 3.21.
    static func level(_ cell: SurveyCell) -> Double {
        let heard = Double(cell.rssi.count), sent = Double(max(cell.sent, cell.rssi.count))
        let share = heard / sent
        guard share > 0.5 else { return cell.rssi.min() ?? 0 }
        let sorted = cell.rssi.sorted()
        let q = (1 - 0.5 / share) * (heard - 1)
        let lo = Int(q), hi = min(lo + 1, sorted.count - 1)
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (q - Double(lo))
    }

    /// A cell's weight: its readings' say, saturating (fading averages out over a few readings;
    /// the shadowing at the point does not).
    static func weight(_ cell: SurveyCell) -> Double {
        let n = Double(cell.rssi.count)
        return n / (n + 4)
    }
}
