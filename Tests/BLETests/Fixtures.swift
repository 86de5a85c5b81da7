import BLE
import Foundation

/// The real captures under Fixtures/, read relative to this file so the tests need no
/// bundle lookup.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// One JSON object per non-empty line.
    static func jsonLines(_ name: String) throws -> [[String: Any]] {
        let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
        }
    }

    static var golden: [[String: Any]] { get throws { try jsonLines("horizon74.golden.jsonl") } }
    static var bleMonitorCases: [[String: Any]] { get throws { try jsonLines("ble_monitor_hci_cases.jsonl") } }

    /// The H4 packets of every golden event, in file order.
    static var goldenPackets: [[UInt8]] {
        get throws { try golden.compactMap { ($0["h4_hex"] as? String).flatMap(Hex.bytes) } }
    }
}

/// SplitMix64: a small deterministic generator so property tests replay exactly.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Array where Element == UInt8 {
    init(hex: String) {
        self = Hex.bytes(hex) ?? []
    }
}
