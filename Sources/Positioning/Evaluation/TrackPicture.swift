import Wire
import SiteModel

/// An SVG of one floor: rooms, walls, doors and nodes, with a device's true track and the
/// tracks locators estimated for it, so a reader sees where and how a locator goes wrong.
public struct TrackPicture {
    public struct Line {
        public var label: String
        public var colour: String
        public var points: [(t: Double, p: Point2)]
        public init(label: String, colour: String, points: [(t: Double, p: Point2)]) {
            self.label = label; self.colour = colour; self.points = points
        }
    }

    public var title: String
    public var floor: Floor
    public var nodes: [Node]
    public var lines: [Line]
    /// A gap longer than this (s) breaks a track (the device was away, or unheard).
    public var gap = 5.0

    public init(title: String, floor: Floor, nodes: [Node], lines: [Line]) {
        self.title = title; self.floor = floor; self.nodes = nodes; self.lines = lines
    }

    public var svg: String {
        let lo = floor.bounds.min, hi = floor.bounds.max
        let width = max(hi.x - lo.x, 1), depth = max(hi.y - lo.y, 1)
        let scale = min(60, 900 / width), margin = 20.0, legend = 22.0 * Double(lines.count) + 30
        let w = width * scale + 2 * margin, h = depth * scale + 2 * margin + legend
        // Floor plans have y up; SVG has y down.
        func at(_ p: Point2) -> (x: Double, y: Double) { (margin + (p.x - lo.x) * scale, margin + (hi.y - p.y) * scale) }
        func px(_ p: Point2) -> String { let a = at(p); return fixed(a.x, 1) + "," + fixed(a.y, 1) }
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(fixed(w, 0))\" height=\"\(fixed(h, 0))\" "
            + "font-family=\"sans-serif\" font-size=\"11\">\n<title>\(escape(title))</title>\n"
        out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        for room in floor.rooms {
            out += "<polygon points=\"\(room.points.map(px).joined(separator: " "))\" fill=\"#f3f3ee\" stroke=\"#bbb\"/>\n"
            if let c = centroid(room.points).map(at) {
                out += "<text x=\"\(fixed(c.x, 1))\" y=\"\(fixed(c.y, 1))\" fill=\"#999\" "
                    + "text-anchor=\"middle\">\(escape(room.id))</text>\n"
            }
        }
        for wall in floor.walls where wall.points.count >= 2 {
            out += "<polyline points=\"\(wall.points.map(px).joined(separator: " "))\" fill=\"none\" stroke=\"#444\" stroke-width=\"3\"/>\n"
        }
        for door in floor.doors {
            let c = at(door.at)
            out += "<circle cx=\"\(fixed(c.x, 1))\" cy=\"\(fixed(c.y, 1))\" r=\"5\" fill=\"none\" stroke=\"#2a2\" stroke-width=\"2\"/>\n"
        }
        for line in lines { out += polylines(line, at: at) }
        for node in nodes {
            let c = at(node.point.xy)
            out += "<rect x=\"\(fixed(c.x - 4, 1))\" y=\"\(fixed(c.y - 4, 1))\" width=\"8\" height=\"8\" fill=\"#c22\"/>"
                + "<text x=\"\(fixed(c.x + 6, 1))\" y=\"\(fixed(c.y - 6, 1))\" fill=\"#c22\">\(escape(node.name))</text>\n"
        }
        var y = depth * scale + 2 * margin + 14
        out += "<text x=\"\(fixed(margin, 0))\" y=\"\(fixed(y, 0))\">\(escape(title))</text>\n"
        for line in lines {
            y += 22
            out += "<line x1=\"\(fixed(margin, 0))\" y1=\"\(fixed(y - 4, 0))\" x2=\"\(fixed(margin + 30, 0))\" y2=\"\(fixed(y - 4, 0))\" "
                + "stroke=\"\(line.colour)\" stroke-width=\"3\"/><text x=\"\(fixed(margin + 38, 0))\" y=\"\(fixed(y, 0))\">\(escape(line.label))</text>\n"
        }
        return out + "</svg>\n"
    }

    private func polylines(_ line: Line, at: (Point2) -> (x: Double, y: Double)) -> String {
        var out = "", run: [String] = []
        var last = -Double.infinity
        var drawn = (x: -Double.infinity, y: -Double.infinity)
        func flush() {
            if run.count > 1 {
                out += "<polyline points=\"\(run.joined(separator: " "))\" fill=\"none\" stroke=\"\(line.colour)\" "
                    + "stroke-width=\"1.5\" stroke-opacity=\"0.75\" stroke-linejoin=\"round\"/>\n"
            }
            run.removeAll()
        }
        for (t, p) in line.points {
            if t - last > gap { flush(); drawn = (-.infinity, -.infinity) }
            last = t
            // Points less than a pixel from the last one drawn add bytes, not information.
            let a = at(p)
            guard abs(a.x - drawn.x) >= 1 || abs(a.y - drawn.y) >= 1 else { continue }
            drawn = a
            run.append(fixed(a.x, 1) + "," + fixed(a.y, 1))
        }
        flush()
        return out
    }

    private func centroid(_ points: [Point2]) -> Point2? {
        guard !points.isEmpty else { return nil }
        var x = 0.0, y = 0.0
        for p in points { x += p.x; y += p.y }
        return Point2(x / Double(points.count), y / Double(points.count))
    }

    private func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}

/// `v` with `decimals` digits after the point, without Foundation's formatter.
func fixed(_ v: Double, _ decimals: Int) -> String {
    guard v.isFinite else { return v.isNaN ? "–" : (v > 0 ? "∞" : "-∞") }
    // Beyond Int's range (a diverged track's error) the digits would trap: print it as Swift does.
    guard abs(v) < 1e15 else { return String(v) }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(v) * scale).rounded()
    let whole = Int(scaled / scale)
    var text = (v < 0 && scaled > 0 ? "-" : "") + String(whole)
    guard decimals > 0 else { return text }
    var fraction = String(Int(scaled - Double(whole) * scale))
    while fraction.count < decimals { fraction = "0" + fraction }
    text += "." + fraction
    return text
}
