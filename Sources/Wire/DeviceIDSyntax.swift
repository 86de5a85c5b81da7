/// Whether a written device id has the spelling of docs/protocol.md#device-ids, so that a reading can ever carry it.
///
/// Ids are compared byte for byte, so an id in capitals or without the dashes would silently
/// never match: the site file says so instead.
public enum DeviceIDSyntax {
    /// `nil` when `id` is spelled as docs/protocol.md#device-ids does, else what is wrong with it.
    public static func problem(_ id: String) -> String? {
        let shown = "'\(id)'"
        guard let colon = id.firstIndex(of: ":") else { return "\(shown) is not a device id: " + forms }
        let kind = id[..<colon], rest = Substring(id[id.index(after: colon)...])
        let ok: Bool
        switch kind {
        case "iBeacon", "altBeacon":
            // Readings write major and minor in decimal without leading zeros: say so, as the
            // generic message would not.
            let numbers = rest.split(separator: "-", omittingEmptySubsequences: false).suffix(2).map(String.init)
            if let padded = numbers.first(where: { $0.count > 1 && $0.hasPrefix("0") && $0.allSatisfy(\.isWholeNumber) }) {
                let plain = padded.drop { $0 == "0" }
                return "\(shown) writes the number '\(padded)' with a leading zero: readings carry it as "
                    + "'\(plain.isEmpty ? "0" : String(plain))', so this id would never match"
            }
            // <uuid>-<major>-<minor>: the UUID's own four dashes, then two numbers.
            let parts = rest.split(separator: "-", omittingEmptySubsequences: false)
            ok = parts.count == 7 && zip(parts.prefix(5), [8, 4, 4, 4, 12]).allSatisfy { isHex($0, count: $1) }
                && parts.suffix(2).allSatisfy { isNumber($0, max: 65_535) }
        case "eddystone":
            let parts = rest.split(separator: "-", omittingEmptySubsequences: false)
            ok = parts.count == 2 && isHex(parts[0], count: 20) && isHex(parts[1], count: 12)
        case "irk":
            ok = isHex(rest, count: 32)
        case "mac":
            let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
            ok = parts.count == 6 && parts.allSatisfy { isHex($0, count: 2) }
        default:
            return "\(shown) is not a device id: " + forms
        }
        return ok ? nil : "\(shown) is not spelled as a \(kind) id is (lower-case hex): " + forms
    }

    /// What is wrong with `id` and, when it names a device in another spelling (capitals,
    /// padded numbers, a UUID without dashes), the spelling readings carry; nil when `id` is
    /// already spelled as docs/protocol.md#device-ids does.
    public static func advice(_ id: String) -> String? {
        guard let problem = problem(id) else { return nil }
        guard let canonical = canonical(id) else { return problem }
        return "'\(id)' would never match: readings spell this id '\(canonical)'"
    }

    /// The warning for a site's device id that is a docs/protocol.md#device-ids id in another spelling (capitals,
    /// padding), which no reading can carry; nil for every other id. An id in no docs/protocol.md#device-ids form at
    /// all (an ESPresense alias, `tile:…`, `apple:…`) may still arrive from a dialect, which
    /// passes its ids through unchanged, so it says nothing about matching.
    public static func neverMatches(_ id: String) -> String? {
        canonical(id).map { "'\(id)' would never match: readings spell this id '\($0)'" }
    }

    /// The docs/protocol.md#device-ids spelling of an id written in another one, if there is exactly one: the kind's
    /// own capitals, lower-case hex, a dashed UUID, numbers without leading zeros.
    public static func canonical(_ id: String) -> String? {
        guard let colon = id.firstIndex(of: ":") else { return nil }
        let rest = id[id.index(after: colon)...].lowercased()
        let kind: String
        var body: String
        switch id[..<colon].lowercased() {
        case "ibeacon", "altbeacon":
            kind = id[..<colon].lowercased() == "ibeacon" ? "iBeacon" : "altBeacon"
            var parts = rest.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard parts.count >= 3 else { return nil }
            let numbers = parts.suffix(2).map { n in n.drop { $0 == "0" }.isEmpty ? "0" : String(n.drop { $0 == "0" }) }
            parts.removeLast(2)
            var uuid = parts.joined(separator: "-")
            if parts.count == 1, uuid.count == 32 { uuid = dashed(uuid) }
            body = ([uuid] + numbers).joined(separator: "-")
        case "eddystone", "irk", "mac":
            kind = id[..<colon].lowercased()
            body = rest
            if kind == "mac", body.count == 17 { body = String(body.map { $0 == "-" ? ":" : $0 }) }
        default:
            return nil
        }
        let candidate = kind + ":" + body
        return candidate != id && problem(candidate) == nil ? candidate : nil
    }

    /// A 32-digit UUID with its four dashes, 8-4-4-4-12.
    private static func dashed(_ hex: String) -> String {
        var out = ""
        for (i, c) in hex.enumerated() {
            if [8, 12, 16, 20].contains(i) { out.append("-") }
            out.append(c)
        }
        return out
    }

    static let forms = "expects iBeacon:<uuid>-<major>-<minor>, altBeacon:<id1>-<id2>-<id3>, "
        + "eddystone:<namespace>-<instance>, irk:<key hex> or mac:<aa:bb:cc:dd:ee:ff>"

    private static func isHex(_ s: Substring, count: Int) -> Bool {
        s.utf8.count == count && s.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    private static func isNumber(_ s: Substring, max: Int) -> Bool {
        // Decimal as docs/protocol.md#device-ids writes it: no leading zero, so "0" but never "01".
        !s.isEmpty && s.utf8.count <= 5 && (s == "0" || s.first != "0") && s.utf8.allSatisfy { (48...57).contains($0) } && Int(s).map { $0 <= max } == true
    }
}
