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

extension Array where Element == UInt8 {
    init(hex: String) {
        self = Hex.bytes(hex) ?? []
    }
}
