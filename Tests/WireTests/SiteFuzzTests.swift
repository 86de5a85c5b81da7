import Testing
import Wire
import SiteModel
import YAML
import TestSupport

private let sitesDirectory: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/") + "/tools/sites/"
}()

/// Bytes YAML gives meaning to, plus digits and letters, so mutations hit the grammar.
private let alphabet = Array("[]{}:,-#&*!|>'\"\n\t .0123456789abcxyz<?%@`".utf8)

private func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
    var bytes = input
    for _ in 0..<Int.random(in: 1...4, using: &rng) where !bytes.isEmpty {
        let at = Int.random(in: 0..<bytes.count, using: &rng)
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...6, using: &rng)))
        case 1: bytes.insert(alphabet.randomElement(using: &rng) ?? 0, at: at)
        case 2: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: at)
        case 3: bytes[at] = alphabet.randomElement(using: &rng) ?? 0
        case 4:
            // Duplicate a line: repeated keys, ids and list items.
            let start = bytes[..<at].lastIndex(of: 10).map { $0 + 1 } ?? 0
            let end = bytes[at...].firstIndex(of: 10).map { $0 + 1 } ?? bytes.count
            bytes.insert(contentsOf: bytes[start..<end], at: start)
        default: bytes.removeSubrange(at...)
        }
    }
    return bytes
}

@Test(arguments: ["flat.yaml", "house.yaml", "espresense-companion.yaml"])
func mutatedSitesNeverCrashAndAlwaysPointInsideTheFile(_ file: String) throws {
    let original = try YAML.readFile(sitesDirectory + file)
    var rng = SplitMix64(seed: 0x5EED_0000 + UInt64(file.utf8.count))
    var rejected = 0
    for _ in 0..<1500 {
        let bytes = mutate(original, &rng)
        let lines = bytes.reduce(1) { $0 + ($1 == 10 ? 1 : 0) }
        let decoded: SiteDecoding
        do {
            decoded = Site.decode(try YAML.parse(bytes: bytes))
        } catch {
            rejected += 1
            #expect((1...lines + 1).contains(error.line) && !error.message.isEmpty, "\(error)")
            continue
        }
        _ = decoded.site.geometryWarnings(locations: decoded.locations)
        for problem in decoded.problems {
            #expect((1...lines + 1).contains(problem.line), "\(problem)")
            #expect(!problem.message.isEmpty)
        }
        if decoded.errors.isEmpty { #expect(!decoded.site.floors.isEmpty) }
    }
    // The mutations must reach both the parser's errors and the decoder.
    #expect(rejected > 100 && rejected < 1400, "\(rejected) of 1500 rejected by the parser")
}

/// Random trees built from the site's own keys, decoded without YAML in between.
@Test func randomTreesOfSiteKeysNeverCrashTheDecoder() {
    let keys = ["floors", "rooms", "walls", "doors", "zones", "nodes", "devices", "irks", "id", "name", "points",
                "point", "bounds", "between", "at", "floor", "key", "mqtt", "tls", "port", "positioning", "window",
                "storage", "retention", "rx_adj", "tx_ref", "attenuation", "exclude_devices"]
    let scalars = ["0", "1", "-3.5", "3s", "x", "", "~", "nan", "1e309", "kitchen", "ground", "0123456789abcdef0123456789abcdef"]
    var rng = SplitMix64(seed: 42)
    func tree(_ depth: Int) -> ConfigNode {
        let line = Int.random(in: 1...200, using: &rng)
        switch depth > 5 ? 0 : Int.random(in: 0..<3, using: &rng) {
        case 0: return ConfigNode(.scalar(scalars.randomElement(using: &rng) ?? "", plain: Bool.random(using: &rng)), line: line, column: 1)
        case 1: return ConfigNode(.sequence((0..<Int.random(in: 0...4, using: &rng)).map { _ in tree(depth + 1) }), line: line, column: 1)
        default:
            let entries = (0..<Int.random(in: 0...5, using: &rng)).map { _ in
                ConfigNode.Entry(key: keys.randomElement(using: &rng) ?? "", keyLine: line, value: tree(depth + 1))
            }
            return ConfigNode(.mapping(entries), line: line, column: 1)
        }
    }
    for _ in 0..<3000 {
        let decoded = Site.decode(tree(0))
        _ = decoded.site.geometryWarnings(locations: decoded.locations)
        #expect(decoded.problems.allSatisfy { (0...200).contains($0.line) })
    }
}
