import Positioning
import Wire
import SiteModel

/// Real site surveys for the Lab's survey rows, read from the committed fixtures as
/// `tools/philotuxo-convert.py` and `tools/kolakowski-convert.py` convert them for the CLI:
/// readings in time order, and TRUTH.csv's text.
public struct SurveyData: Sendable {
    public var readings: [(node: String, reading: Reading)]
    /// TRUTH.csv (`t,x,y,z[,floor]`), for `TruthTrack(csv:site:)`.
    public var truthCSV: String

    public init(readings: [(node: String, reading: Reading)], truthCSV: String) {
        self.readings = readings; self.truthCSV = truthCSV
    }

    /// The philotuxo hall's survey: `positions.csv` (set, file, x, y, z, t_start, t_end) and
    /// each point's `.mbd` lines (`t,receiver,beacon,rssi`); `text(file)` reads a file of the
    /// folder. A point's truth is a stay from its first to its last line. The device id is the
    /// walks' (`Philotuxo.walk`): `mac:` and the beacon's twelve digits.
    public static func philotuxo(positions: String, text: (String) throws -> String) throws -> SurveyData {
        var readings: [(node: String, reading: Reading)] = []
        var stays: [(t0: Double, t1: Double, row: String)] = []
        for (number, line) in positions.split(separator: "\n").enumerated().dropFirst() {
            let f = line.split(separator: ",").map { String($0.trimmingSpaces) }
            guard f.count >= 7, let t0 = Double(f[5]), let t1 = Double(f[6]) else {
                throw Philotuxo.FormatError(line: number + 1, message: "expected set,file,x,y,z,t_start,t_end,lines")
            }
            stays.append((t0, t1, "\(f[2]),\(f[3]),\(f[4])"))
            for (n, l) in try text(f[1]).split(separator: "\n").enumerated() {
                let r = l.split(separator: ",")
                guard r.count >= 4, let t = Double(r[0]), let rssi = Int(r[3].trimmingSpaces) else {
                    throw Philotuxo.FormatError(line: n + 1, message: "\(f[1]): expected t,receiver,beacon,rssi")
                }
                readings.append((String(r[1]), Reading(id: "mac:" + r[2], rssi: rssi, t: t, kind: .mac)))
            }
        }
        stays.sort { $0.t0 < $1.t0 }
        var csv = "t,x,y,z\n"
        for s in stays { csv += "\(s.t0),\(s.row)\n\(s.t1),\(s.row)\n" }
        readings.sort { $0.reading.t < $1.reading.t }
        return SurveyData(readings: readings, truthCSV: csv)
    }

    /// The Kolakowski flat's robot survey, `flat.csv` (`t,x,y,rssi_1..rssi_6`, empty where the
    /// anchor did not hear the tag): one half of its rows (the split in time), RSSI rounded to whole
    /// dB half to even (as the converter's Python does), nodes `anchor-1` … `anchor-6`, the tag 1.3 m up on its pole.
    public static func kolakowski(flat: String, half: Half) throws -> SurveyData {
        let lines = flat.split(separator: "\n").dropFirst()
        let rows = half == .first ? lines.prefix(lines.count / 2) : lines.suffix(lines.count - lines.count / 2)
        var readings: [(node: String, reading: Reading)] = []
        var csv = "t,x,y,z,floor\n"
        for (i, line) in rows.enumerated() {
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            guard f.count == 9, let t = Double(f[0]), let x = Double(f[1]), let y = Double(f[2]) else {
                throw Philotuxo.FormatError(line: i + 2, message: "expected t,x,y,rssi_1..rssi_6")
            }
            csv += "\(t),\(min(max(x, 0), kolakowskiFlat.x)),\(min(max(y, 0), kolakowskiFlat.y)),1.3,flat\n"
            for a in 0..<6 where !f[3 + a].isEmpty {
                guard let v = Double(f[3 + a]) else { throw Philotuxo.FormatError(line: i + 2, message: "rssi_\(a + 1) is not a number") }
                readings.append(("anchor-\(a + 1)", Reading(id: kolakowskiTag, rssi: Int(v.rounded(.toNearestOrEven)), t: t, kind: .mac)))
            }
        }
        return SurveyData(readings: readings, truthCSV: csv)
    }

    public enum Half: Sendable { case first, second }
}

/// The flat's box (m) and its tag's id, as tools/kolakowski-convert.py writes them.
public let kolakowskiFlat = Point3(9.07, 7.10, 2.7)
public let kolakowskiTag = "mac:02:6b:6f:6c:61:6b"

/// The flat as tools/kolakowski-convert.py's site: one floor and room, the layout's walls as
/// one polyline of 3 dB, the anchors of `anchors.csv` (`id,x,y,z`).
public func kolakowskiSite(anchors: String, layout: String) throws -> Site {
    var site = Site()
    var floor = Floor(id: "flat", name: "Flat", bounds: (Point3(0, 0, 0), kolakowskiFlat))
    let (w, d) = (kolakowskiFlat.x, kolakowskiFlat.y)
    floor.rooms = [Room(id: "flat", name: "Flat", points: [Point2(0, 0), Point2(w, 0), Point2(w, d), Point2(0, d)])]
    let outline = layout.split(separator: "\n").dropFirst().compactMap { l -> Point2? in
        let f = l.split(separator: ",").compactMap { Double($0.trimmingSpaces) }
        return f.count == 2 ? Point2(f[0], f[1]) : nil
    }
    floor.walls = [Wall(points: outline, attenuation: 3)]
    site.floors = [floor]
    for (i, l) in anchors.split(separator: "\n").dropFirst().enumerated() {
        let f = l.split(separator: ",").compactMap { Double($0.trimmingSpaces) }
        guard f.count == 4 else { throw Philotuxo.FormatError(line: i + 2, message: "expected id,x,y,z") }
        site.nodes.append(Node(name: "anchor-\(Int(f[0]))", point: Point3(f[1], f[2], f[3]), floors: ["flat"]))
    }
    return site
}
