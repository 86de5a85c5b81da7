import Wire
import SiteModel

/// CAL.yaml, the file `whereabouts calibrate --survey` writes and `--calibration` (and the site's
/// `calibration: FILE`) reads: `SiteCalibration.decode` takes `version`, `absorption`,
/// `nodes[].name/rx_adj`, `devices[].id/tx_ref` and `radio_map` (its width, weight, limit and
/// per node and floor the points' residuals); every other key is the fit's report, kept
/// beside the numbers it explains. The format is described in docs/operations.md, Measure your
/// own site.
extension SurveyCalibration {
    /// The file's text. `comment` lines (what was fitted from what) go first, as YAML comments.
    public func calibrationFile(comment: [String]) -> String {
        var out = comment.map { "# " + $0 + "\n" }.joined()
        out += "version: \(SiteCalibration.version)\n"
        out += "fitted: survey\n"
        out += "absorption: \(Self.fixed(absorption, 3))\n"
        out += "survey: { readings: \(used), outside_truth: \(outside), faint: \(faint), unknown_node: \(unknownNode), other_device: \(otherDevice), "
        out += "rms: \(Self.fixed(rms, 2)), rms_exponent_per_node: \(Self.fixed(rmsPerNodeExponent, 2)) }\n"
        out += "floors:\n"
        for f in floors {
            out += "  - { id: \(Self.quoted(f.id)), absorption: \(f.absorption.map { Self.fixed($0, 3) } ?? "null"), points: \(f.cells), "
            out += "thin: \(Self.fixed(thinShare[f.id] ?? 0, 2)) }\n"
        }
        out += "nodes:\n"
        for n in nodes { out += "  - " + Self.entry(n) + "\n" }
        out += "devices:\n"
        for d in devices {
            out += "  - { id: \(Self.quoted(d.id)), tx_ref: \(Self.fixed(d.txRef, 2)), readings: \(d.readings), points: \(d.cells), "
            out += "rms: \(Self.fixed(d.rms, 2)) }\n"
        }
        out += thin.isEmpty ? "thin: []\n" : "thin:\n"
        for t in thin {
            out += "  - { floor: \(Self.quoted(t.floor)), at: [\(Self.fixed(t.at.x, 1)), \(Self.fixed(t.at.y, 1))], nearest: \(Self.fixed(t.nearest, 1)) }\n"
        }
        return out + radioMapSection
    }

    /// `radio_map:`: the map's width, weight and limit, and per node and floor its fit and points.
    var radioMapSection: String {
        var out = "radio_map:\n"
        out += "  bandwidth: \(Self.fixed(radioMap.bandwidth, 2))\n  prior: \(Self.fixed(radioMap.prior, 2))\n  limit: \(Self.fixed(radioMap.limit, 1))\n"
        out += radioMap.layers.isEmpty ? "  nodes: []\n" : "  nodes:\n"
        for (layer, fit) in zip(radioMap.layers, mapFits) {
            out += "    - name: \(Self.quoted(layer.node))\n      floor: \(Self.quoted(layer.floor))\n"
            out += "      rms_model: \(Self.fixed(fit.rmsModel, 2))\n      rms_map: \(Self.fixed(fit.rmsMap, 2))\n"
            out += "      rms_held_out: \(Self.fixed(fit.rmsHeldOut, 2))\n      thin: \(Self.fixed(fit.thin, 2))\n"
            out += "      points:\n"
            for p in layer.points {
                out += "        - [\(Self.fixed(p.x, 2)), \(Self.fixed(p.y, 2)), \(Self.fixed(p.residual, 2)), \(Self.fixed(p.weight, 3))]\n"
            }
        }
        return out
    }

    private static func entry(_ n: NodeFit) -> String {
        var e = "{ name: \(quoted(n.name)), "
        if let adj = n.rxAdj {
            e += "rx_adj: \(fixed(adj, 2)), readings: \(n.readings), points: \(n.cells), rms: \(fixed(n.rms, 2)), "
            e += "distance: [\(fixed(n.nearest, 1)), \(fixed(n.farthest, 1))]"
            if let own = n.ownExponent, let ownRMS = n.ownRMS { e += ", exponent_own: \(fixed(own, 2)), rms_own: \(fixed(ownRMS, 2))" }
            if n.nearest > thinRadius { e += ", note: \"no survey point within \(fixed(thinRadius, 0)) m of the node\"" }
        } else {
            e += "fitted: false, readings: \(n.readings), points: \(n.cells), "
            e += "note: \"heard at \(n.cells) survey points, \(minimumCells) needed: rx_adj as in the site file\""
        }
        return e + " }"
    }

    /// `value` with `decimals` decimals (no Foundation here); `null` for NaN.
    static func fixed(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return "null" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let r = (abs(value) * scale).rounded()
        let whole = Int(r / scale), part = Int(r - Double(whole) * scale)
        var text = (value < 0 && r > 0 ? "-" : "") + String(whole)
        if decimals > 0 {
            let digits = String(part)
            text += "." + String(repeating: "0", count: decimals - digits.count) + digits
        }
        return text
    }

    /// A YAML double-quoted scalar (JSON's string syntax is valid YAML).
    static func quoted(_ text: String) -> String {
        var writer = JSONWriter(capacity: text.utf8.count + 2)
        writer.value(text)
        return writer.string
    }
}
